package shrink

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/bound"
	"github.com/ares-arena/arena/scenario"
)

// move moves each fault earlier (the gap before it shortened; the faults
// after it move with it), then to its successor's instant when it is
// still apart from it.
func (sh *shrinker) move() (bool, error) {
	changed := false
	for i := 0; i < len(sh.best.faults); i++ {
		snap := sh.best
		prev := sh.warmup
		if i > 0 {
			prev = snap.faults[i-1].at
		}
		gap := snap.faults[i].at - prev
		ok, err := sh.bisect(gap, 0, func(g time.Duration) schedule {
			return snap.with(append(slices.Clone(snap.faults[:i]), shifted(snap.faults[i:], g-gap)...))
		})
		changed = changed || ok
		if err != nil {
			return changed, err
		}
	}
	for i := 0; i+1 < len(sh.best.faults); i++ {
		fs := sh.best.faults
		if fs[i].at == fs[i+1].at {
			continue
		}
		later := slices.Clone(fs)
		later[i].at = fs[i+1].at
		ok, err := sh.try(sh.best.with(later))
		changed = changed || ok
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// shorten shortens each fault's duration (never to nothing: without a
// duration a fault stays), then the cooldown, down to the recovery
// deadline.
func (sh *shrinker) shorten() (bool, error) {
	changed := false
	for i := 0; i < len(sh.best.faults); i++ {
		snap := sh.best
		v, ok := snap.faults[i].step.Action.Metadata[fault.MetaDuration]
		if !ok {
			continue
		}
		d, err := clock.ParseDuration(v)
		if err != nil {
			continue
		}
		ok, err = sh.bisect(d, time.Millisecond, func(d time.Duration) schedule {
			c := snap.clone()
			c.faults[i].step.Action.Metadata[fault.MetaDuration] = bound.FormatDuration(d)
			return c
		})
		changed = changed || ok
		if err != nil {
			return changed, err
		}
	}
	snap := sh.best
	ok, err := sh.bisect(snap.cooldown, sh.deadline, func(d time.Duration) schedule {
		return schedule{faults: snap.faults, cooldown: d}
	})
	return changed || ok, err
}

// simplify leaves out each metadata key but the duration, so that it
// takes its default.
func (sh *shrinker) simplify() (bool, error) {
	changed := false
	for i := 0; i < len(sh.best.faults); i++ {
		for _, k := range slices.Sorted(maps.Keys(sh.best.faults[i].step.Action.Metadata)) {
			if k == fault.MetaDuration {
				continue
			}
			c := sh.best.clone()
			delete(c.faults[i].step.Action.Metadata, k)
			if len(c.faults[i].step.Action.Metadata) == 0 {
				c.faults[i].step.Action.Metadata = nil
			}
			ok, err := sh.try(c)
			changed = changed || ok
			if err != nil {
				return changed, err
			}
		}
	}
	return changed, nil
}

// toRoles retargets a fault on an agent that held a role when it landed
// (a role is a type that one agent has when the system starts: leader,
// orchestrator) at the role: kill_agent worker-2, when worker-2 had been
// elected leader by then, becomes kill_agent type:leader. The fault then
// hits the role's holder whoever it is, so the faults that made worker-2
// the leader can be dropped. The role must resolve to the same agent in
// the candidate's failing run: a fault is never moved to another agent.
func (sh *shrinker) toRoles() (bool, error) {
	changed := false
	for i := 0; i < len(sh.best.faults); i++ {
		a := sh.best.faults[i].step.Action
		spec, ok := fault.Lookup(a.Type)
		if ok && spec.Target != fault.TargetAgent || fault.IsSelector(a.TargetID) {
			continue
		}
		sameAgent := func(rep *scenario.Report) bool {
			return i < len(rep.Steps) && rep.Steps[i].Result != nil && rep.Steps[i].Result.Action.TargetID == a.TargetID
		}
		for _, role := range sh.roles {
			c := sh.best.clone()
			c.faults[i].step.Action.TargetID = fault.SelectType + role
			ok, err := sh.tryWhen(c, sameAgent)
			changed = changed || ok
			if err != nil {
				return changed, err
			}
			if ok {
				break
			}
		}
	}
	return changed, nil
}

// resolve replaces selectors by the agents they hit in the best
// schedule's failing run: all at once, else one by one. A selector of a
// role (type:leader) stays: it names the holder, whoever that is.
func (sh *shrinker) resolve() (bool, error) {
	hit := func(s schedule, rep *scenario.Report, i int) (string, bool) {
		t := s.faults[i].step.Action.TargetID
		role, isType := strings.CutPrefix(t, fault.SelectType)
		if !fault.IsSelector(t) || isType && slices.Contains(sh.roles, role) || i >= len(rep.Steps) || rep.Steps[i].Result == nil {
			return "", false
		}
		id := rep.Steps[i].Result.Action.TargetID
		return id, id != "" && id != t
	}
	snap, rep := sh.best, sh.bestRep
	all := snap.clone()
	var picks []int
	for i := range snap.faults {
		if id, ok := hit(snap, rep, i); ok {
			all.faults[i].step.Action.TargetID = id
			picks = append(picks, i)
		}
	}
	if len(picks) == 0 {
		return false, nil
	}
	ok, err := sh.try(all)
	if err != nil || ok || len(picks) == 1 {
		return ok, err
	}
	changed := false
	for _, i := range picks {
		snap, rep := sh.best, sh.bestRep
		id, ok := hit(snap, rep, i)
		if !ok {
			continue
		}
		c := snap.clone()
		c.faults[i].step.Action.TargetID = id
		ok, err := sh.try(c)
		changed = changed || ok
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// bisect looks for the smallest round value of a duration below cur that
// still fails, from floor: floor first, then a bisection over the round
// values between (assuming that what fails at a value fails above it). It
// reports whether a value was accepted.
func (sh *shrinker) bisect(cur, floor time.Duration, at func(time.Duration) schedule) (bool, error) {
	if cur <= floor {
		return false, nil
	}
	ok, err := sh.try(at(floor))
	if err != nil || ok {
		return ok, err
	}
	vals := roundDurations(floor, cur)
	lo, hi := -1, len(vals) // vals[lo] passes (floor at -1), vals[hi] fails (cur at len)
	accepted := false
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		ok, err := sh.try(at(vals[mid]))
		if err != nil {
			return accepted, err
		}
		if ok {
			hi, accepted = mid, true
		} else {
			lo = mid
		}
	}
	return accepted, nil
}
