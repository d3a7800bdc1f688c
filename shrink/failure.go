package shrink

import (
	"fmt"
	"slices"

	"github.com/ares-arena/arena/scenario"
)

// FailRate is how often a schedule failed over some runs of it.
type FailRate struct {
	Failed int `json:"failed"`
	Runs   int `json:"runs"`
}

// String reads "fails 7/10".
func (r FailRate) String() string { return fmt.Sprintf("fails %d/%d", r.Failed, r.Runs) }

// atLeast reports whether the rate reaches need out of runs.
func (r FailRate) atLeast(need, runs int) bool {
	return r.Runs > 0 && r.Failed*runs >= need*r.Runs
}

// Failure names the ways a scenario run failed, in the gate's order: each
// criterion of its expect block that did not hold ("min_grade",
// "min_score", "max_mttr", "all_recovered", "consistent"), the consistency
// checks that failed by name ("consistent:tasks"), "aborted" when a stop
// condition ended it, and "steps" when a step missed its expectation. A
// run whose gate passed, or was not decided (cancelled), has none.
//
// How the run ended otherwise (timed out) is left out: it is the
// schedule's length, not the system, that decides it.
func Failure(rep *scenario.Report) []string {
	if rep == nil || rep.Gate.Verdict != scenario.GateFailed {
		return nil
	}
	var out []string
	if rep.Failed > 0 {
		out = append(out, "steps")
	}
	if rep.Report != nil && rep.Aborted != "" {
		out = append(out, "aborted")
	}
	for _, c := range rep.Gate.Checks {
		if c.Passed || c.Name == "steps" || c.Name == "run" {
			continue
		}
		out = append(out, c.Name)
		if c.Name != "consistent" || rep.Report == nil {
			continue
		}
		for _, ch := range rep.Checks {
			if name := "consistent:" + ch.Name; !ch.Passed && !ch.NotApplicable && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// SameFailure returns the predicate by which Run judges a candidate by
// default: it fails the way orig failed. Its gate fails every criterion
// orig's failed, with the same consistency checks failing, and it is
// aborted if orig was. A candidate with a step that missed its expectation
// (a fault that no longer lands once others were dropped) does not count,
// unless orig had one too: such a failure is of the schedule's making.
func SameFailure(orig *scenario.Report) func(*scenario.Report) bool {
	return sameFailure(Failure(orig))
}

// sameFailure is SameFailure of a run whose Failure was want.
func sameFailure(want []string) func(*scenario.Report) bool {
	return func(rep *scenario.Report) bool {
		got := Failure(rep)
		if len(want) == 0 || len(got) == 0 {
			return false
		}
		if slices.Contains(got, "steps") && !slices.Contains(want, "steps") {
			return false
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				return false
			}
		}
		return true
	}
}
