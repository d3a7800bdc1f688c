package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// A violation is kept bounded: at most maxViolationDetails details and
// maxViolationOps operations, each line and the error cut to
// maxViolationText bytes on a rune boundary, whatever the check found.
func TestViolationBounded(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	o := newObserver(newVirtualExecutor(clk), nil, nil, ObserveOptions{})
	long := strings.Repeat("ключ", 1000) // 8000 bytes, two a rune
	v := &fault.Violation{Summary: "key " + long + " is not linearizable", Details: make([]string, 30), Ops: make([]fault.ViolationOp, 60)}
	for i := range v.Details {
		v.Details[i] = "detail " + long
	}
	for i := range v.Ops {
		v.Ops[i] = fault.ViolationOp{Op: "get(" + long + ") = 1", Call: clk.Now()}
	}
	r := o.checkResult("lin", 0, fmt.Errorf("lin: %w", v))
	got := r.Violation
	if len(got.Details) != maxViolationDetails+2 || len(got.Ops) != maxViolationOps {
		t.Fatalf("%d details, %d operations; want %d (and the two lines saying what was left out) and %d",
			len(got.Details), len(got.Ops), maxViolationDetails, maxViolationOps)
	}
	texts := append([]string{r.Error, got.Summary}, got.Details[:maxViolationDetails]...)
	for _, op := range got.Ops {
		texts = append(texts, op.Op)
	}
	for _, s := range texts {
		if len(s) > maxViolationText || !utf8.ValidString(s) || !strings.HasSuffix(s, "…") {
			t.Fatalf("a line of %d bytes (valid UTF-8 %v): %.40q…; want at most %d, cut on a rune and marked", len(s), utf8.ValidString(s), s, maxViolationText)
		}
	}
	if want := []string{"… 10 more", "10 more operations involved, not listed"}; !slices.Equal(got.Details[maxViolationDetails:], want) {
		t.Errorf("the last details %q, want %q", got.Details[maxViolationDetails:], want)
	}
}

// A survival report lists at most 20 checks of each kind and says how many
// there were: undecided ones as failed ones.
func TestReportTextCountsWhatItLeavesOut(t *testing.T) {
	r := &Report{ChecksRun: 25, ChecksUndecided: 25}
	for range 25 {
		r.Checks = append(r.Checks, CheckResult{Name: "lin", Error: "boom"}, CheckResult{Name: "slow", Undecided: true, Error: "undecided"})
	}
	var b strings.Builder
	if err := r.writeText(&b, 20); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if n := strings.Count(text, "check lin failed"); n != 20 || !strings.Contains(text, "… 25 failed checks in all\n") {
		t.Errorf("%d failed checks listed; want 20 and the count of all:\n%s", n, text)
	}
	if n := strings.Count(text, "check slow undecided"); n != 20 || !strings.Contains(text, "… 25 undecided checks in all\n") {
		t.Errorf("%d undecided checks listed; want 20 and the count of all:\n%s", n, text)
	}
}
