package fault

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ares-arena/arena/clock"
)

// ReportDirEnv names the directory reports and the files they point to (a
// linearizability check's visualization, a container's whole log) are
// written to, when no option says otherwise.
const ReportDirEnv = "ARENA_REPORT_DIR"

// ErrUndecided is returned (wrapped) by a check that could not decide within
// its budget. Like a check that could not look (ErrNotApplicable) it is not
// measured: never counted as passed, never as failed. The error says how far
// the check got (see UndecidedError).
var ErrUndecided = errors.New("undecided")

// UndecidedError is the error of a check that ran out of its time budget
// before it could decide. It matches ErrUndecided.
type UndecidedError struct {
	Budget   time.Duration // the check's budget
	Elapsed  time.Duration // how long it ran (wall time)
	Progress string        // how far it got, for a person: "decided 97 of 100 keys; k7: 1204 operations, 38 with unknown outcomes"
}

// Error says that the check is undecided and how far it got. The elapsed
// time is left out: it is a wall-clock figure, and a virtual run's report
// stays the same from run to run.
func (e *UndecidedError) Error() string {
	return fmt.Sprintf("undecided within its %s budget: %s", e.Budget, e.Progress)
}

// Is makes errors.Is(err, ErrUndecided) true.
func (e *UndecidedError) Is(target error) bool { return target == ErrUndecided }

// Violation is what a consistency check found wrong, in a form a person can
// act on. A check returns it (or an error wrapping it); the report keeps it
// beside the check's result (CheckResult.Violation), each operation's time
// beside the faults of the run that were active then, and the service puts
// it in the evidence store.
type Violation struct {
	Summary string        `json:"summary"`           // one line: what is wrong
	Details []string      `json:"details,omitempty"` // what the check found around it (the longest linearizable prefix, the state then)
	Ops     []ViolationOp `json:"ops,omitempty"`     // the operations involved, in the order they were invoked
	Files   []string      `json:"files,omitempty"`   // files written for it (a visualization), as paths
}

// Error returns the summary.
func (v *Violation) Error() string { return v.Summary }

// ViolationOp is one operation a violation involves, as a client saw it.
type ViolationOp struct {
	Client int            `json:"client"`
	Op     string         `json:"op"`               // what was asked and answered: "put(k7, 3) ok", "get(k7) = 2"
	Call   time.Time      `json:"call"`             // invoked, on the run's clock
	Return time.Time      `json:"return,omitzero"`  // answered; zero when the outcome is unknown (no answer, a timeout)
	At     clock.Duration `json:"at"`               // Call as an offset from the run's start (set by the observer)
	Faults []string       `json:"faults,omitempty"` // the run's faults active at any time from Call to Return (set by the observer)
}

// ErrNotApplicable is returned (wrapped) by a check that could not look.
var ErrNotApplicable = errors.New("not applicable")

// Probe reports whether the system is healthy right now; nil means healthy.
type Probe func(ctx context.Context) error

// Check is a named invariant of the system (no task lost, memory matches its
// checkpoint, DAG restored), run after each fault has recovered and at the end.
// A check that had nothing to look at (an agent without the endpoint it
// reads) returns an error wrapping ErrNotApplicable: it is then listed as not
// measured and does not count toward consistency, never as passed.
type Check struct {
	Name string
	Run  func(ctx context.Context) error
}
