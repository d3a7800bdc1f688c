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

// issue 26's bodies, each just under the 1 MiB body limit: a 1 MB value
// aliased into every step's type (it took 33.6 s, 3.44 GB and answered 98
// MB), and a valid scenario whose tags repeat a 1 MB description (its run
// answered 1 GB). Both are refused at once, in a small answer, by validate
// and run alike.
func TestAliasBombsAnswerSmall(t *testing.T) {
	s := newSystem(t, systemConfig{})
	bomb := func(into string) string {
		big := strings.Repeat("x", 1_000_000)
		var b strings.Builder
		if into == "type" {
			b.WriteString("name: bomb\nx: &v " + big + "\nactions:\n")
			for range 2_000 {
				b.WriteString("- action: {type: *v}\n")
			}
			return b.String()
		}
		b.WriteString("name: bomb\ndescription: &v " + big + "\ntags:\n")
		for range 1_000 {
			b.WriteString("- *v\n")
		}
		return b.String() + "actions:\n- action: {type: kill_leader}\n"
	}
	for _, into := range []string{"type", "tags"} {
		body := bomb(into)
		for _, path := range []string{"/arena/scenario/validate", "/arena/scenario/run"} {
			start := time.Now()
			r := s.do(t, request{method: "POST", path: path, body: body})
			t.Logf("into %s: %s (%d bytes): %d, %d bytes answered in %s", into, path, len(body), r.code, len(r.body), time.Since(start))
			if e := errorOf(t, r); r.code != 400 || len(r.body) > 64<<10 || !strings.Contains(e.Error, "bytes of text after expanding aliases") {
				t.Errorf("into %s: %s = %d with %d bytes (%.200s), want a 400 under 64 KiB naming the expansion", into, path, r.code, len(r.body), r.body)
			}
		}
	}
}
