package arenatest

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
)

// worstFaults is how many faults a failure message lists.
const worstFaults = 3

// failure is the message of a run that failed: what failed and why, what
// the faults did, and how to replay it.
type failure struct {
	head    string         // "scenario leader-failover failed its gate"
	score   *engine.Score  // nil: no score line (A/B tests)
	reasons []string       // the gate's reasons, one per line
	report  *engine.Report // for the faults; may be nil
	lines   []string       // more detail, indented
	seed    uint64
	files   string   // report files' path without extension; "" if none
	shrunk  []string // what WithShrinkOnFailure found, and its replay command
}

// text formats the failure for t.
//
//	arena: scenario leader-failover failed its gate: score 61.2, grade D
//	  - grade D is below the minimum A
//	faults: 2 landed, 1 recovered, 1 unrecovered; MTTR 4.1s, p95 4.1s, max 4.1s
//	worst faults:
//	  - kill_leader on leader-0 at 15s: unrecovered
//	  - kill_leader on worker-1 at 30s: recovered in 4.1s
//	seed: 7
//	rerun: go test -run '^TestLeaderFailover$' -arena.seed=7
//	   or: ARENA_SEED=7 go test -run '^TestLeaderFailover$'
//
// The rerun promise holds in virtual time only; a run in simulated or real
// time gets "replay the same schedule: …" and a note that the outcome may
// differ.
func (f failure) text(t TB) string {
	var b strings.Builder
	b.WriteString("arena: " + f.head)
	if f.score != nil {
		b.WriteString(": " + scoreText(*f.score))
	}
	b.WriteByte('\n')
	for _, r := range f.reasons {
		fmt.Fprintf(&b, "  - %s\n", r)
	}
	for _, l := range f.lines {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	if r := f.report; r != nil && (r.Landed > 0 || r.InjectionErrorCount > 0) {
		fmt.Fprintf(&b, "faults: %d landed, %d recovered, %d unrecovered", r.Landed, r.Recovered, r.Unrecovered)
		if r.Recovered > 0 {
			fmt.Fprintf(&b, "; MTTR %s, p95 %s, max %s", shortDuration(r.MTTR.D()), shortDuration(r.P95TTR.D()), shortDuration(r.MaxTTR.D()))
		}
		if r.InjectionErrorCount > 0 {
			fmt.Fprintf(&b, "; %d did not land", r.InjectionErrorCount)
		}
		b.WriteByte('\n')
		if worst := worst(r, worstFaults); len(worst) > 0 {
			b.WriteString("worst faults:\n")
			for _, fo := range worst {
				fmt.Fprintf(&b, "  - %s\n", fo.Describe())
			}
		}
	}
	fmt.Fprintf(&b, "seed: %d\n", f.seed)
	cmds := replayCommands(t, f.seed) // under -arena.replay, the file: one seed per failure
	if clk := f.clock(); clk.Deterministic() {
		fmt.Fprintf(&b, "rerun: %s\n   or: %s", cmds[0], cmds[1])
	} else {
		// Only a virtual run is a function of its seed: elsewhere the
		// command replays the schedule, and the hint says no more.
		fmt.Fprintf(&b, "replay the same schedule: %s\n                       or: %s\n", cmds[0], cmds[1])
		fmt.Fprintf(&b, "(the outcome may differ: in %s the system's own goroutines run in an order no seed fixes)", clk.Time())
	}
	if f.files != "" {
		fmt.Fprintf(&b, "\nreport: %s.json (and .xml, .txt)", f.files)
	}
	for _, l := range f.shrunk {
		b.WriteString("\n" + l)
	}
	return b.String()
}

// clock is the clock of the failed run: virtual for an A/B test (its
// runs are the fakes', in virtual time) and for a report made before
// reports named their clock.
func (f failure) clock() clock.Kind {
	if f.report == nil || (f.report.Clock == "" && f.report.Virtual) {
		return clock.KindVirtual
	}
	if f.report.Clock == "" {
		return clock.KindReal
	}
	return f.report.Clock
}

func scoreText(s engine.Score) string {
	switch {
	case s.NoneLanded: // the gate's reasons say which fault failed first
		return "no grade (no planned fault landed)"
	case !s.Measured:
		return "no score (nothing measured)"
	}
	return fmt.Sprintf("score %.1f, grade %s", s.Total, s.Grade)
}

// worst returns at most n faults, the unrecovered ones first (earliest
// first), then the slowest recoveries; faults that did no harm are left out.
func worst(r *engine.Report, n int) []engine.FaultOutcome {
	var fs []engine.FaultOutcome
	for _, f := range r.Faults {
		if !f.Recovered || f.TTR > 0 || slices.ContainsFunc(f.Checks, failed) {
			fs = append(fs, f)
		}
	}
	slices.SortStableFunc(fs, func(a, b engine.FaultOutcome) int {
		switch {
		case a.Recovered != b.Recovered && !a.Recovered:
			return -1
		case a.Recovered != b.Recovered:
			return 1
		case !a.Recovered:
			return 0 // in the order they landed
		}
		return cmp.Compare(b.TTR, a.TTR)
	})
	return fs[:min(n, len(fs))]
}

func failed(c engine.CheckResult) bool { return c.Failed() }

// rerun returns the two commands that replay t's runs with seed: the flag
// and the environment form. They select t alone (selector).
func rerun(t TB, seed uint64) [2]string {
	sel := selector(t)
	if _, ok := t.(ginkgoReporter); ok {
		return [2]string{
			fmt.Sprintf("go test %s -%s=%d", sel, SeedFlag, seed),
			fmt.Sprintf("%s=%d ginkgo --focus=%s", SeedEnv, seed, strings.TrimPrefix(sel, "-ginkgo.focus=")),
		}
	}
	return [2]string{
		fmt.Sprintf("go test %s -%s=%d", sel, SeedFlag, seed),
		fmt.Sprintf("%s=%d go test %s", SeedEnv, seed, sel),
	}
}

// selectorPattern is the -test.run pattern that selects the test named
// name (t.Name()) alone: each element anchored and quoted.
func selectorPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// selector returns the go test flags that select t alone: the -run (or
// -bench) pattern, or Ginkgo's focus on the spec's full text.
func selector(t TB) string {
	name := t.Name()
	if _, ok := t.(ginkgoReporter); ok {
		return "-ginkgo.focus=" + shellQuote("^"+regexp.QuoteMeta(name)+"$")
	}
	pattern := selectorPattern(name)
	if _, ok := t.(metricReporter); ok && strings.HasPrefix(name, "Benchmark") {
		return "-run '^$' -bench " + shellQuote(pattern)
	}
	return "-run " + shellQuote(pattern)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
