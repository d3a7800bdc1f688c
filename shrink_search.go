package arena

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

func (sh *shrinker) run(ctx context.Context) (*ShrinkResult, error) {
	sctx, cancel := context.WithTimeoutCause(ctx, sh.cfg.Budget, errShrinkTime)
	defer cancel()
	sh.ctx = sctx
	sc := sh.cfg.Scenario
	sh.pass = "original"
	rep, rate, err := sh.baseline(sctx)
	if err != nil {
		return nil, fmt.Errorf("shrink: scenario %q: %w", sc.Name, err)
	}
	sh.base = shrinkBase(sc)
	sh.warmup = sc.Config.Warmup.D()
	if plain(sc, rep) {
		sh.seen[timedScenario(sc).key()] = true
		sh.accept(timedScenario(sc), rep, rate)
	} else {
		sh.pass = "sequence"
		s0 := timedRun(sc, rep)
		ok, err := sh.try(s0)
		if err == nil && !ok {
			err = fmt.Errorf("%w when its steps are played in sequence at the times they started", ErrNoFailure)
		}
		if err != nil {
			return nil, fmt.Errorf("shrink: scenario %q: %w", sc.Name, err)
		}
	}
	sh.tail = max(sh.deadline, sh.best.cooldown)

	err = sh.search()
	stop := ShrinkDone
	switch {
	case errors.Is(err, errShrinkRuns):
		stop = ShrinkRuns
	case ctx.Err() != nil:
		stop = ShrinkCancelled
	case errors.Is(err, errShrinkTime):
		stop = ShrinkTime
	case err != nil:
		return nil, fmt.Errorf("shrink: scenario %q: %w", sc.Name, err)
	}
	res := &ShrinkResult{Failure: sh.failure, JudgeRuns: sh.runs, JudgeNeed: sh.need, Virtual: sh.virtual, Stopped: stop}
	if stop == ShrinkCancelled {
		sh.warnings = append(sh.warnings, "cancelled before replays: the rate is that of the runs that judged the result")
		return sh.result(res, sh.bestRate, sh.bestRep), ctx.Err()
	}
	rate, failing, err := sh.confirm(ctx)
	res = sh.result(res, rate, failing)
	if err != nil {
		if ctx.Err() != nil {
			res.Stopped = ShrinkCancelled
		}
		return res, err
	}
	return res, nil
}

// shrinkBase is what every candidate keeps of sc: its name (marked as
// shrunk), config and gate. Candidates are sequential and bounded by their
// planned length.
func shrinkBase(sc *Scenario) *Scenario {
	b := &Scenario{Name: sc.Name, Tags: sc.Tags, Config: sc.Config, Expect: sc.Expect}
	if !strings.HasSuffix(b.Name, "-shrunk") {
		b.Name += "-shrunk"
	}
	b.Description = "The smallest schedule arena shrink found that still fails as " + sc.Name + " did."
	c := &b.Config
	c.ParallelActions, c.MaxConcurrent, c.StopOnError, c.Timeout = false, 0, false, 0
	return b
}

func (sh *shrinker) result(res *ShrinkResult, rate FailRate, failing *ScenarioReport) *ShrinkResult {
	res.Scenario = sh.best.scenario(sh.base)
	res.Original = sh.chain[0].size(sh.warmup)
	res.Shrunk = sh.best.size(sh.warmup)
	res.Rate, res.Report = rate, failing
	res.Runs, res.Candidates = sh.runsMade, sh.candidates
	res.WallTime = Duration(time.Since(sh.started))
	res.Passes, res.Warnings = sh.passes, sh.warnings
	return res
}

// search runs the passes: window and cut once, then the others until a
// round of them changes nothing. Every accepted schedule is smaller than
// the one before (fewer faults, else a shorter run, else fewer instants,
// shorter fault durations, fewer metadata keys, a role where its holder
// was named, fewer selectors), so the rounds end.
func (sh *shrinker) search() error {
	for _, p := range []struct {
		name string
		fn   func() error
	}{{"window", sh.window}, {"cut", sh.cut}} {
		sh.pass = p.name
		if err := p.fn(); err != nil {
			return err
		}
	}
	for {
		changed := false
		for _, p := range []struct {
			name string
			fn   func() (bool, error)
		}{{"drop", sh.ddmin}, {"roles", sh.toRoles}, {"move", sh.move}, {"shorten", sh.shorten}, {"simplify", sh.simplify}, {"resolve", sh.resolve}} {
			sh.pass = p.name
			c, err := p.fn()
			if err != nil {
				return err
			}
			changed = changed || c
		}
		if !changed {
			return nil
		}
	}
}

// confirm replays the best schedule Replays times. A schedule that fails
// less often than Need of Runs is not the answer: the accepted schedules
// before it are replayed in turn, newest first, until one fails often
// enough (the original at worst).
func (sh *shrinker) confirm(ctx context.Context) (FailRate, *ScenarioReport, error) {
	need, runs := sh.need, sh.runs
	n := sh.cfg.Replays
	rate, failing, err := sh.replay(ctx, sh.best, n)
	if err != nil || rate.atLeast(need, runs) {
		return rate, failing, err
	}
	if len(sh.chain) == 1 {
		sh.warnings = append(sh.warnings, fmt.Sprintf("the original %s replays, less than %d of %d: its failure does not reproduce reliably", rate, need, runs))
		return rate, failing, nil
	}
	sh.warnings = append(sh.warnings, fmt.Sprintf("the smallest failing schedule found (%s) %s replays, less than the %d of %d that judged it: not reported",
		faultCount(len(sh.best.faults)), rate, need, runs))
	if runs == 1 {
		sh.warnings = append(sh.warnings, "outcomes varied on a virtual clock: the system has randomness of its own; judge candidates with Runs and Need")
		need, runs = DefaultShrinkNeed, DefaultShrinkRuns
	}
	for i := len(sh.chain) - 2; i >= 0; i-- {
		rate, failing, err = sh.replay(ctx, sh.chain[i], n)
		if err != nil {
			return rate, failing, err
		}
		if rate.atLeast(need, runs) || i == 0 {
			sh.best, sh.bestRep, sh.passes = sh.chain[i], failing, sh.passes[:i+1]
			if !rate.atLeast(need, runs) {
				sh.warnings = append(sh.warnings, fmt.Sprintf("the original %s replays: its failure does not reproduce reliably", rate))
			}
			break
		}
	}
	return rate, failing, nil
}

func faultCount(n int) string {
	if n == 1 {
		return "1 fault"
	}
	return fmt.Sprintf("%d faults", n)
}
