package shrink

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/ares-arena/arena/engine"
)

// smallSchedule is the size up to which the shrinker goes straight to
// delta debugging: the window and cut passes pay off on long schedules.
const smallSchedule = 8

// windows are the spans before a failure's time that the window pass
// tries, shortest first.
var windows = []time.Duration{time.Minute, 10 * time.Minute, time.Hour}

// failTime is when the best schedule's failure showed in its failing run:
// the first failed consistency check, the first unrecovered fault's
// deadline, the abort. A consistency failure the report does not list
// (past its ListCap) is located by one more run that stops at it.
func (sh *shrinker) failTime() (time.Duration, bool, error) {
	rep := sh.bestRep
	failure := Failure(rep)
	var t time.Duration
	found := false
	note := func(d time.Duration) {
		if !found || d < t {
			t, found = d, true
		}
	}
	if rep.Aborted != "" {
		note(rep.End.Sub(rep.Start))
	}
	if slices.Contains(failure, "all_recovered") {
		for _, f := range rep.Faults {
			if !f.Recovered {
				note(f.At.D() + sh.deadline)
				break
			}
		}
	}
	if !slices.Contains(failure, "consistent") {
		return t, found, nil
	}
	var names []string
	for _, ch := range rep.Checks {
		if !ch.Passed && !ch.NotApplicable {
			note(ch.At.D())
			return t, true, nil
		}
		if !slices.Contains(names, ch.Name) {
			names = append(names, ch.Name)
		}
	}
	if len(names) == 0 {
		return t, found, nil
	}
	sc := sh.best.scenario(sh.base)
	sc.Config.AbortWhen = engine.AbortWhen{ChecksFailed: names}
	loc, err := sh.runOnce(sh.ctx, sc, true)
	var invalid *invalidError
	switch {
	case errors.As(err, &invalid):
		return t, found, nil
	case err != nil:
		return 0, false, err
	case loc.Aborted != "":
		note(loc.End.Sub(loc.Start))
		sh.named(names, loc.Aborted)
	}
	return t, found, nil
}

// named makes the default predicate name the consistency check that
// aborted the locating run, when the original's report did not list it
// (a failure past its ListCap): a candidate must fail that check again.
func (sh *shrinker) named(names []string, aborted string) {
	if sh.cfg.Fails != nil || slices.ContainsFunc(sh.failure, func(f string) bool { return strings.HasPrefix(f, "consistent:") }) {
		return
	}
	for _, name := range names {
		if engine.AbortedByCheck(aborted, name) {
			sh.failure = append(sh.failure, "consistent:"+name)
			sh.fails = sameFailure(sh.failure)
			return
		}
	}
}

// window tries the faults of growing windows before the failure's time,
// moved to the end of the warmup, with a cooldown long enough to judge
// them.
func (sh *shrinker) window() error {
	if len(sh.best.faults) <= smallSchedule {
		return nil
	}
	t, ok, err := sh.failTime()
	if err != nil || !ok {
		return err
	}
	all := sh.best.faults
	for _, w := range windows {
		var win []timedFault
		for _, f := range all {
			if f.at >= t-w && f.at <= t {
				win = append(win, f)
			}
		}
		if len(win) == len(all) {
			return nil
		}
		if len(win) == 0 {
			continue
		}
		ok, err := sh.try(schedule{faults: shifted(win, sh.warmup-win[0].at), cooldown: sh.tail})
		if err != nil || ok {
			return err
		}
	}
	return nil
}

// cut bisects for the shortest prefix of the faults that fails, then the
// shortest suffix of that, then moves what is left to the end of the
// warmup.
func (sh *shrinker) cut() error {
	if fs := sh.best.faults; len(fs) > smallSchedule {
		lo, hi := 0, len(fs) // fs[:hi] fails
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			ok, err := sh.try(schedule{faults: fs[:mid], cooldown: sh.tail})
			if err != nil {
				return err
			}
			if ok {
				hi = mid
			} else {
				lo = mid
			}
		}
	}
	if fs := sh.best.faults; len(fs) > smallSchedule {
		lo, hi := 0, len(fs) // fs[lo:] fails
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			ok, err := sh.try(sh.sub(fs[mid:]))
			if err != nil {
				return err
			}
			if ok {
				lo = mid
			} else {
				hi = mid
			}
		}
	}
	if fs := sh.best.faults; len(fs) > 0 && fs[0].at > sh.warmup {
		_, err := sh.try(sh.best.with(shifted(fs, sh.warmup-fs[0].at)))
		return err
	}
	return nil
}

// sub is the schedule of fs, faults taken from the best schedule. When
// they end sooner than it, the run gets at least the tail after them: the
// faults near its end must have time to be judged.
func (sh *shrinker) sub(fs []timedFault) schedule {
	s := sh.best.with(fs)
	if n, m := len(fs), len(sh.best.faults); n > 0 && m > 0 && fs[n-1].at < sh.best.faults[m-1].at {
		s.cooldown = max(s.cooldown, sh.tail)
	}
	return s
}

// ddmin is delta debugging (Zeller and Hildebrandt's ddmin) over the
// faults: it tries each of n chunks alone, then each complement, and
// doubles n when neither fails, until the schedule is 1-minimal: dropping
// any one fault makes it pass. Faults keep their times.
func (sh *shrinker) ddmin() (bool, error) {
	changed := false
	n := 2
	for len(sh.best.faults) >= 2 {
		fs := sh.best.faults
		n = min(n, len(fs))
		chunks := make([][2]int, n)
		for i := range n {
			chunks[i] = [2]int{i * len(fs) / n, (i + 1) * len(fs) / n}
		}
		reduced := false
		for _, c := range chunks {
			ok, err := sh.try(sh.sub(fs[c[0]:c[1]]))
			if err != nil {
				return changed, err
			}
			if ok {
				n, reduced = 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for _, c := range chunks {
				ok, err := sh.try(sh.sub(slices.Concat(fs[:c[0]], fs[c[1]:])))
				if err != nil {
					return changed, err
				}
				if ok {
					n, reduced = max(n-1, 2), true
					break
				}
			}
		}
		if reduced {
			changed = true
			continue
		}
		if n >= len(fs) {
			break
		}
		n = min(2*n, len(fs))
	}
	return changed, nil
}
