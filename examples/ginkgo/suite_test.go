package ginkgoexample

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/ares-arena/arena/arenaginkgo"
)

// Ginkgo's interrupt handler waits for SIGINT for the rest of the process:
// Ginkgo's goroutine, not a leak of the code under test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction(
		"github.com/onsi/ginkgo/v2/internal/interrupt_handler.(*InterruptHandler).registerForInterrupts.func2"))
}

func TestChaos(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Chaos")
}

// The suite's scores, one line per spec, in the suite's output.
var _ = ReportAfterSuite("arena scores", func(r Report) {
	var b strings.Builder
	for _, res := range arenaginkgo.Results(r) {
		score := res.Entries["arena.score"]
		if v, ok := res.Entries["arena.verdict"]; ok {
			score = v
		}
		fmt.Fprintf(&b, "%-8s %-6s %-5s seed %-20s %s\n", res.State, score, res.Entries["arena.grade"], res.Entries["arena.seed"], res.Spec)
	}
	AddReportEntry("arena scores", b.String())
})
