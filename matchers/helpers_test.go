package matchers_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
)

// outcome is what a matcher made of one actual value.
type outcome struct {
	match    bool
	err      string
	positive string // FailureMessage
	negated  string // NegatedFailureMessage
}

func check(t *testing.T, m types.GomegaMatcher, actual any, want outcome) {
	t.Helper()
	var got outcome
	ok, err := m.Match(actual)
	got.match = ok
	if err != nil {
		got.err = err.Error()
	} else {
		got.positive, got.negated = m.FailureMessage(actual), m.NegatedFailureMessage(actual)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(outcome{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// assertion runs Expect(actual).To(m) and Expect(actual).NotTo(m) through
// Gomega and returns their failure messages ("" for a pass).
func assertion(actual any, m types.GomegaMatcher) (to, notTo string) {
	var msg string
	g := gomega.NewGomega(func(message string, _ ...int) { msg = message })
	g.Expect(actual).To(m)
	to, msg = msg, ""
	g.Expect(actual).NotTo(m)
	return to, msg
}

var sprintf = fmt.Sprintf
