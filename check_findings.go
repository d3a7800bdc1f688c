package arena

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
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
	Client int       `json:"client"`
	Op     string    `json:"op"`               // what was asked and answered: "put(k7, 3) ok", "get(k7) = 2"
	Call   time.Time `json:"call"`             // invoked, on the run's clock
	Return time.Time `json:"return,omitzero"`  // answered; zero when the outcome is unknown (no answer, a timeout)
	At     Duration  `json:"at"`               // Call as an offset from the run's start (set by the observer)
	Faults []string  `json:"faults,omitempty"` // the run's faults active at any time from Call to Return (set by the observer)
}

// Bounds of a violation as a report keeps it: a check may find more, the
// report lists these many, each line cut to maxViolationText bytes (a key,
// a model's description of an operation or a state may be of any length).
const (
	maxViolationOps     = 50
	maxViolationDetails = 20
	maxViolationText    = 1024
)

// Failed reports whether the check ran, decided and found the system at
// fault: not passed, and neither not applicable nor undecided.
func (c CheckResult) Failed() bool { return !c.Passed && !c.NotApplicable && !c.Undecided }

// checkResult makes the result of one run of check name at offset at.
func (o *observer) checkResult(name string, at Duration, err error) CheckResult {
	r := CheckResult{Name: name, At: at, Passed: err == nil,
		NotApplicable: errors.Is(err, ErrNotApplicable), Undecided: errors.Is(err, ErrUndecided)}
	if err == nil {
		return r
	}
	r.Error = err.Error()
	if v := (*Violation)(nil); !r.NotApplicable && !r.Undecided && errors.As(err, &v) && v != nil {
		r.Violation = o.annotate(v)
		r.Error = cutUTF8(r.Error, maxViolationText) // the summary, perhaps wrapped
	}
	return r
}

// annotate copies v, bounded in lines and bytes, with each operation's offset and the faults
// active during it.
func (o *observer) annotate(v *Violation) *Violation {
	out := &Violation{Summary: cutUTF8(v.Summary, maxViolationText), Files: slices.Clone(v.Files)}
	for _, d := range v.Details[:min(len(v.Details), maxViolationDetails)] {
		out.Details = append(out.Details, cutUTF8(d, maxViolationText))
	}
	if n := len(v.Details) - maxViolationDetails; n > 0 {
		out.Details = append(out.Details, fmt.Sprintf("… %d more", n))
	}
	ops := v.Ops[:min(len(v.Ops), maxViolationOps)]
	now := o.ex.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, op := range ops {
		op.Op = cutUTF8(op.Op, maxViolationText)
		op.At = o.offset(op.Call)
		end := op.Return
		if end.IsZero() {
			end = now
		}
		op.Faults = o.faultsDuring(op.Call, end)
		out.Ops = append(out.Ops, op)
	}
	if n := len(v.Ops) - len(ops); n > 0 {
		out.Details = append(out.Details, fmt.Sprintf("%d more operations involved, not listed", n))
	}
	return out
}

// faultsDuring names the run's listed faults active at some time in [from,
// to]. A fault is active from the instant arena started landing it until
// arena lifted it, the runtime healed it, or the system recovered from it;
// one that never recovered is active to the end. Under mu.
func (o *observer) faultsDuring(from, to time.Time) []string {
	var out []string
	for _, f := range o.faults {
		if f.landed.After(to) {
			continue
		}
		if end, ok := o.faultEnd(f); ok && end.Before(from) {
			continue
		}
		out = append(out, f.out.fault())
	}
	return out
}

// faultEnd is when fault f stopped acting, if it has.
func (o *observer) faultEnd(f *faultTrack) (time.Time, bool) {
	switch {
	case f.out.Lifted != nil:
		return o.start.Add(f.out.Lifted.D()), true
	case f.out.HealedByRuntime != nil:
		return o.start.Add(f.out.HealedByRuntime.D()), true
	case f.done && f.out.Recovered:
		return f.landed.Add(f.out.TTR.D()), true
	}
	return time.Time{}, false
}

// writeViolation writes a violation's details and operations, indented,
// for the text reports.
func writeViolation(b *strings.Builder, v *Violation) {
	for _, d := range v.Details {
		fmt.Fprintf(b, "    %s\n", d)
	}
	for _, op := range v.Ops {
		ret := "no answer"
		if !op.Return.IsZero() {
			ret = "answered " + Duration(op.Return.Sub(op.Call)).String() + " later"
		}
		faults := "no fault active"
		if len(op.Faults) > 0 {
			faults = "during " + strings.Join(op.Faults, "; ")
		}
		fmt.Fprintf(b, "    %s client %d %s (%s) — %s\n", op.At, op.Client, op.Op, ret, faults)
	}
	for _, f := range v.Files {
		fmt.Fprintf(b, "    see %s\n", f)
	}
}
