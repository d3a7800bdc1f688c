package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/bound"
)

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
func (o *observer) checkResult(name string, at clock.Duration, err error) CheckResult {
	r := CheckResult{Name: name, At: at, Passed: err == nil,
		NotApplicable: errors.Is(err, fault.ErrNotApplicable), Undecided: errors.Is(err, fault.ErrUndecided)}
	if err == nil {
		return r
	}
	r.Error = err.Error()
	if v := (*fault.Violation)(nil); !r.NotApplicable && !r.Undecided && errors.As(err, &v) && v != nil {
		r.Violation = o.annotate(v)
		r.Error = bound.Cut(r.Error, maxViolationText) // the summary, perhaps wrapped
	}
	return r
}

// annotate copies v, bounded in lines and bytes, with each operation's offset and the faults
// active during it.
func (o *observer) annotate(v *fault.Violation) *fault.Violation {
	out := &fault.Violation{Summary: bound.Cut(v.Summary, maxViolationText), Files: slices.Clone(v.Files)}
	for _, d := range v.Details[:min(len(v.Details), maxViolationDetails)] {
		out.Details = append(out.Details, bound.Cut(d, maxViolationText))
	}
	if n := len(v.Details) - maxViolationDetails; n > 0 {
		out.Details = append(out.Details, fmt.Sprintf("… %d more", n))
	}
	ops := v.Ops[:min(len(v.Ops), maxViolationOps)]
	now := o.ex.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, op := range ops {
		op.Op = bound.Cut(op.Op, maxViolationText)
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
		out = append(out, f.out.Label())
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
func writeViolation(b *strings.Builder, v *fault.Violation) {
	for _, d := range v.Details {
		fmt.Fprintf(b, "    %s\n", d)
	}
	for _, op := range v.Ops {
		ret := "no answer"
		if !op.Return.IsZero() {
			ret = "answered " + clock.Duration(op.Return.Sub(op.Call)).String() + " later"
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
