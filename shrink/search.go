package shrink

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/internal/bound"
	"github.com/ares-arena/arena/scenario"
)

func (sh *shrinker) run(ctx context.Context) (*Result, error) {
	sctx, cancel := wallDeadline(ctx, sh.started.Add(sh.cfg.Budget))
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
	stop := Done
	switch {
	case errors.Is(err, ErrOutOfRuns):
		stop = OutOfRuns
	case ctx.Err() != nil:
		stop = Cancelled
	case errors.Is(err, ErrOutOfTime):
		stop = OutOfTime
	case err != nil:
		return nil, fmt.Errorf("shrink: scenario %q: %w", sc.Name, err)
	}
	res := &Result{Failure: sh.failure, JudgeRuns: sh.runs, JudgeNeed: sh.need, Virtual: sh.virtual, Clock: sh.clock, Stopped: stop}
	if stop == Cancelled {
		sh.warnings = append(sh.warnings, "cancelled before replays: the rate is that of the runs that judged the result")
		return sh.result(res, sh.bestRate, sh.bestRep), ctx.Err()
	}
	rate, failing, err := sh.confirm(ctx)
	res = sh.result(res, rate, failing)
	if err != nil {
		if ctx.Err() != nil {
			res.Stopped = Cancelled
		}
		return res, err
	}
	return res, nil
}

// shrinkBase is what every candidate keeps of sc: its name (marked as
// shrunk), config and gate. Candidates are sequential and bounded by their
// planned length.
func shrinkBase(sc *scenario.Scenario) *scenario.Scenario {
	b := &scenario.Scenario{Name: sc.Name, Tags: sc.Tags, Config: sc.Config, Expect: sc.Expect}
	if !strings.HasSuffix(b.Name, "-shrunk") {
		b.Name += "-shrunk"
	}
	b.Description = "The smallest schedule arena shrink found that still fails as " + sc.Name + " did."
	c := &b.Config
	c.ParallelActions, c.MaxConcurrent, c.StopOnError, c.Timeout = false, 0, false, 0
	return b
}

func (sh *shrinker) result(res *Result, rate FailRate, failing *scenario.Report) *Result {
	res.Scenario = sh.best.scenario(sh.base)
	res.Original = sh.chain[0].size(sh.warmup)
	res.Shrunk = sh.best.size(sh.warmup)
	res.Rate, res.Report = rate, failing
	res.Runs, res.Candidates = sh.runsMade, sh.candidates
	res.WallTime = clock.Duration(clock.Wall().Sub(sh.started))
	res.RunTime = clock.Duration(sh.runTime)
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
func (sh *shrinker) confirm(ctx context.Context) (FailRate, *scenario.Report, error) {
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
	dropped, droppedPass, droppedRate := sh.best, sh.passes[len(sh.passes)-1].Pass, rate
	varied := ""
	if runs == 1 {
		varied = fmt.Sprintf("outcomes varied on %s: the system has randomness of its own; judge candidates with Runs and Need", clockName(sh.clock, sh.virtual))
		need, runs = DefaultNeed, DefaultRuns
	}
	for i := len(sh.chain) - 2; i >= 0; i-- {
		rate, failing, err = sh.replay(ctx, sh.chain[i], n)
		if err != nil {
			return rate, failing, err
		}
		if rate.atLeast(need, runs) || i == 0 {
			sh.best, sh.bestRep, sh.passes = sh.chain[i], failing, sh.passes[:i+1]
			break
		}
	}
	// The warning names both schedules by size and by the pass that found
	// them: the one reported may have as many faults as the one dropped
	// (a longer duration, an earlier instant), and must not read as gone.
	sh.warnings = append(sh.warnings, fmt.Sprintf("the smallest failing schedule found (%s, by pass %s) %s replays, less than the %d of %d that judged it; reported instead: %s (by pass %s), which %s",
		sh.describe(dropped), droppedPass, droppedRate, sh.need, sh.runs, sh.describe(sh.best), sh.passes[len(sh.passes)-1].Pass, rate))
	if varied != "" {
		sh.warnings = append(sh.warnings, varied)
	}
	if !rate.atLeast(need, runs) {
		sh.warnings = append(sh.warnings, fmt.Sprintf("the original %s replays: its failure does not reproduce reliably", rate))
	}
	return rate, failing, nil
}

// describe names a schedule by its size: "1 fault, 25s".
func (sh *shrinker) describe(s schedule) string {
	return faultCount(len(s.faults)) + ", " + bound.FormatDuration(s.length(sh.warmup))
}

// wallDeadline is ctx ending with ErrOutOfTime at deadline on the wall
// clock. Outside a synctest bubble that is a context deadline; inside one,
// whose timers run on its fake clock, a goroutine of the bubble reads the
// kernel's clock (clock.Wall) every simulated 100ms, so that the budget is
// wall time wherever the search runs.
func wallDeadline(ctx context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	if !clock.InBubble() {
		return context.WithDeadlineCause(ctx, deadline, ErrOutOfTime)
	}
	sctx, cancel := context.WithCancelCause(ctx)
	go func() {
		for clock.Wall().Before(deadline) {
			select {
			case <-sctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
		cancel(ErrOutOfTime)
	}()
	return sctx, func() { cancel(context.Canceled) }
}

func faultCount(n int) string {
	if n == 1 {
		return "1 fault"
	}
	return fmt.Sprintf("%d faults", n)
}
