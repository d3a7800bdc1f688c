package arenahttp

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// aliasedSteps: one step with 20 unknown keys, aliased n times (issue 14).
func aliasedSteps(n int) string {
	var b strings.Builder
	b.WriteString("name: amp\nactions:\n  - &a\n    action: {type: kill_agent, target_id: worker-1}\n")
	for i := range 20 {
		fmt.Fprintf(&b, "    bogus%02d: 1\n", i)
	}
	for range n {
		b.WriteString("  - *a\n")
	}
	return b.String()
}

// An alias-amplified scenario is answered in a small body, each problem
// once.
func TestScenarioProblemsOnceAndSmall(t *testing.T) {
	s := newSystem(t, systemConfig{})
	for _, aliases := range []int{9_999, 1_000} {
		body := aliasedSteps(aliases)
		start := time.Now()
		r := s.do(t, request{method: "POST", path: "/arena/scenario/validate", body: body})
		took := time.Since(start)
		e := errorOf(t, r)
		t.Logf("%d aliases (%d bytes): %d, %d bytes answered in %s", aliases, len(body), r.code, len(r.body), took)
		if r.code != 400 || len(r.body) >= 64<<10 {
			t.Errorf("%d aliases: %d with %d bytes, want 400 under 64 KiB", aliases, r.code, len(r.body))
		}
		if strings.Contains(e.Error, "\n") {
			t.Errorf("%d aliases: the error text repeats the problems: %.300q", aliases, e.Error)
		}
	}
	r := s.do(t, request{method: "POST", path: "/arena/scenario/validate", body: aliasedSteps(1_000)})
	if e := errorOf(t, r); len(e.Problems) != 20 || !strings.HasSuffix(e.Error, "(and 19 more: see problems)") {
		t.Errorf("1000 aliases: %d problems, error %q; want the 20 unknown keys once each", len(e.Problems), e.Error)
	}
}
