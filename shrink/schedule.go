package shrink

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/internal/bound"
	"github.com/ares-arena/arena/scenario"
)

// timedFault is one fault of a schedule the shrinker tries: a step (its
// action and expectation) at an offset from the run's start.
type timedFault struct {
	at   time.Duration
	step scenario.Step // Delay and DependsOn are not used
}

// schedule is a candidate: faults in time order (same-instant faults in
// list order), each at or after the warmup, then a cooldown.
type schedule struct {
	faults   []timedFault
	cooldown time.Duration
}

// with returns a copy of s whose faults are fs.
func (s schedule) with(fs []timedFault) schedule {
	return schedule{faults: fs, cooldown: s.cooldown}
}

// clone copies the faults, and the metadata of each, so the copy can be
// changed.
func (s schedule) clone() schedule {
	fs := make([]timedFault, len(s.faults))
	for i, f := range s.faults {
		f.step.Action.Metadata = maps.Clone(f.step.Action.Metadata)
		fs[i] = f
	}
	return schedule{faults: fs, cooldown: s.cooldown}
}

// length is the schedule's planned length.
func (s schedule) length(warmup time.Duration) time.Duration {
	last := warmup
	if n := len(s.faults); n > 0 {
		last = s.faults[n-1].at
	}
	return bound.AddSat(last, s.cooldown)
}

func (s schedule) size(warmup time.Duration) Size {
	return Size{Faults: len(s.faults), Length: clock.Duration(s.length(warmup))}
}

// scenario plays the schedule as a sequential scenario on base's config
// and gate: each step's delay is its fault's offset from the previous one
// (the first's from the end of the warmup).
func (s schedule) scenario(base *scenario.Scenario) *scenario.Scenario {
	sc := &scenario.Scenario{Name: base.Name, Description: base.Description, Tags: base.Tags, Config: base.Config, Expect: base.Expect}
	sc.Config.Cooldown = clock.Duration(s.cooldown)
	sc.Actions = make([]scenario.Step, len(s.faults))
	prev := base.Config.Warmup.D()
	for i, f := range s.faults {
		st := f.step
		st.Delay, st.DependsOn = clock.Duration(f.at-prev), nil
		st.Action.ID, st.Action.CreatedAt = "", time.Time{}
		sc.Actions[i] = st
		prev = f.at
	}
	return sc
}

// key identifies the schedule, for the shrinker's memory of verdicts.
func (s schedule) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cooldown=%d\n", s.cooldown)
	for _, f := range s.faults {
		a := f.step.Action
		fmt.Fprintf(&b, "%d %s %q %q %t", f.at, a.Type, a.TargetID, a.SourceID, f.step.ExpectFailure)
		for _, k := range slices.Sorted(maps.Keys(a.Metadata)) {
			fmt.Fprintf(&b, " %s=%v", k, a.Metadata[k])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// shifted returns fs moved by d (negative: earlier).
func shifted(fs []timedFault, d time.Duration) []timedFault {
	out := slices.Clone(fs)
	for i := range out {
		out[i].at += d
	}
	return out
}

// timedScenario is sc's schedule when sc is plain (see plain): each step
// at the end of the warmup plus the delays up to it.
func timedScenario(sc *scenario.Scenario) schedule {
	s := schedule{cooldown: sc.Config.Cooldown.D()}
	at := sc.Config.Warmup.D()
	for _, st := range sc.Actions {
		at = bound.AddSat(at, st.Delay.D())
		s.faults = append(s.faults, timedFault{at: at, step: st})
	}
	return s
}

// plain reports whether sc, played, is exactly its timed schedule: steps
// in sequence, none skipped, nothing ending the run early but the gate.
func plain(sc *scenario.Scenario, rep *scenario.Report) bool {
	c := sc.Config
	return !c.ParallelActions && !c.StopOnError && c.Timeout == 0 && rep.Skipped == 0
}

// timedRun is the schedule of a run of sc: each step that started, at the
// time it started in rep; the cooldown runs to the run's end.
func timedRun(sc *scenario.Scenario, rep *scenario.Report) schedule {
	var s schedule
	warmup := sc.Config.Warmup.D()
	for i, st := range rep.Steps {
		if st.Started == nil {
			continue
		}
		s.faults = append(s.faults, timedFault{at: max(st.Started.D(), warmup), step: sc.Actions[i]})
	}
	slices.SortStableFunc(s.faults, func(a, b timedFault) int { return cmp.Compare(a.at, b.at) })
	last := warmup
	if n := len(s.faults); n > 0 {
		last = s.faults[n-1].at
	}
	s.cooldown = max(rep.End.Sub(rep.Start)-last, 0)
	return s
}

// roundDurations lists the round durations (1, 2 and 5 × 10ⁿ, from 1ms)
// strictly between lo and hi, in increasing order.
func roundDurations(lo, hi time.Duration) []time.Duration {
	var out []time.Duration
	for p := time.Millisecond; p > 0 && p < hi; p *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if d := m * p; d > lo && d < hi {
				out = append(out, d)
			}
		}
		if p > time.Duration(1<<62)/10 {
			break
		}
	}
	return out
}
