package shrink

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/faulterr"
	"github.com/ares-arena/arena/scenario"
)

// Why a search stops early: they travel as errors from a run up through the
// passes. Run returns them (wrapped) when a budget is spent before the
// original has been judged, so that there is no result yet.
var (
	ErrOutOfRuns = errors.New("run budget spent")  // Config.MaxRuns
	ErrOutOfTime = errors.New("time budget spent") // Config.Budget
)

// errNoService: a factory or host that gave the shrinker no service.
var errNoService = errors.New("the factory returned no service")

// invalidError: a candidate the service refused before running it (an
// invalid scenario, a provider missing). It is no failure.
type invalidError struct{ err error }

func (e *invalidError) Error() string { return e.err.Error() }
func (e *invalidError) Unwrap() error { return e.err }

// shrinker is one search: the schedules tried, the best so far and what it
// took.
type shrinker struct {
	cfg      Config
	base     *scenario.Scenario // name, config and gate of every candidate
	warmup   time.Duration      // the base's, kept
	deadline time.Duration      // the runs' recovery deadline: the cooldown's floor
	roles    []string           // agent types with one agent at the start: roles
	tail     time.Duration      // cooldown of a candidate cut from a longer schedule
	fails    func(*scenario.Report) bool
	failure  []string
	runs     int // a candidate is judged by need of runs runs
	need     int
	virtual  bool
	clock    clock.Kind      // of the first run
	runTime  time.Duration   // of every run, on its clock
	started  time.Time       // on the wall clock (clock.Wall)
	ctx      context.Context // the search's: cfg.Budget on the caller's

	best     schedule
	bestRep  *scenario.Report // a failing run of best
	bestRate FailRate         // the runs that judged best
	chain    []schedule       // accepted schedules, oldest first
	passes   []Pass
	pass     string
	seen     map[string]bool // verdicts by schedule key

	runsMade, searchRuns, candidates int
	warnings                         []string
}

func newShrinker(cfg Config) *shrinker {
	started := cfg.Started
	if started.IsZero() {
		started = clock.Wall()
	}
	return &shrinker{cfg: cfg, fails: cfg.Fails, seen: map[string]bool{}, started: started}
}

// runOnce plays sc once on a fresh system. A scenario the service refuses
// is an *invalidError; a run cut short by ctx returns ctx's cause. Runs of
// the search (not the replays of its result) count against Config.MaxRuns.
func (sh *shrinker) runOnce(ctx context.Context, sc *scenario.Scenario, search bool) (*scenario.Report, error) {
	if search && sh.searchRuns >= sh.cfg.MaxRuns {
		return nil, ErrOutOfRuns
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	played := false
	play := func(ctx context.Context, svc *engine.Service) (*scenario.Report, error) {
		played = true
		if svc == nil {
			return nil, errNoService
		}
		if sh.deadline == 0 {
			sh.learn(ctx, svc, sc)
		}
		return scenario.Run(ctx, svc, sc)
	}
	var rep *scenario.Report
	var err error
	if sh.cfg.Host != nil {
		rep, err = sh.cfg.Host(ctx, sc.Config.Seed, play)
	} else {
		var svc *engine.Service
		if svc, err = sh.cfg.System(ctx, sc.Config.Seed); err == nil {
			rep, err = play(ctx, svc)
		}
	}
	if !played || errors.Is(err, errNoService) {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if err == nil {
			err = errors.New("the host did not run the schedule")
		}
		return nil, fmt.Errorf("system: %w", err)
	}
	if rep == nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, &invalidError{err}
	}
	if rep.Report != nil {
		if sh.clock == "" {
			sh.clock = rep.Clock
		}
		sh.runTime += max(rep.End.Sub(rep.Start), 0)
	}
	sh.runsMade++
	if search {
		sh.searchRuns++
	}
	sh.progress()
	if err != nil || rep.Gate.Verdict == scenario.GateInconclusive {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx) // the run was cut short: it says nothing
		}
		return nil, fmt.Errorf("run cut short: %v", err)
	}
	return rep, nil
}

// learn reads, from the first system made, the recovery deadline of the
// runs and the roles of its agents: the types that one agent has.
func (sh *shrinker) learn(ctx context.Context, svc *engine.Service, sc *scenario.Scenario) {
	sh.deadline = sc.Config.ObserveOptions().Or(svc.ObserveOptions()).WithDefaults().RecoveryDeadline
	var agents []fault.AgentInfo
	if in := svc.Injector(); in.HasRuntime() {
		_ = faulterr.Safely(func() error {
			var err error
			agents, err = in.ListAgents(ctx)
			return err
		})
	}
	count := map[string]int{}
	for _, a := range agents {
		count[a.Type]++
	}
	for _, t := range slices.Sorted(maps.Keys(count)) {
		if count[t] == 1 && t != "" {
			sh.roles = append(sh.roles, t)
		}
	}
}

// failed applies the predicate to a run that finished.
func (sh *shrinker) failed(rep *scenario.Report) bool {
	return rep.Gate.Verdict != scenario.GatePassed && sh.fails(rep)
}

// judge runs sc until need runs have failed (it fails) or more than runs -
// need have not (it does not). It returns a failing run when it fails.
func (sh *shrinker) judge(ctx context.Context, sc *scenario.Scenario) (FailRate, *scenario.Report, error) {
	var failing *scenario.Report
	var rate FailRate
	for rate.Failed < sh.need && rate.Runs-rate.Failed <= sh.runs-sh.need {
		rep, err := sh.runOnce(ctx, sc, true)
		if err != nil {
			return rate, nil, err
		}
		rate.Runs++
		if sh.failed(rep) {
			rate.Failed++
			failing = rep
		}
	}
	return rate, failing, nil
}

// try judges s and, when it fails, makes it the best schedule. Verdicts
// are remembered, so a schedule is judged once. A schedule the service
// refuses does not fail.
func (sh *shrinker) try(s schedule) (bool, error) { return sh.tryWhen(s, nil) }

// tryWhen is try, and a failing run must also satisfy keep (when set) for
// s to be accepted.
func (sh *shrinker) tryWhen(s schedule, keep func(*scenario.Report) bool) (bool, error) {
	key := s.key()
	if v, ok := sh.seen[key]; ok {
		return v, nil
	}
	sh.candidates++
	rate, rep, err := sh.judge(sh.ctx, s.scenario(sh.base))
	var invalid *invalidError
	switch {
	case errors.As(err, &invalid):
		rate = FailRate{}
	case err != nil:
		return false, err
	}
	fails := rate.Failed >= sh.need && (keep == nil || keep(rep))
	sh.seen[key] = fails
	if fails {
		sh.accept(s, rep, rate)
	}
	return fails, nil
}

// accept makes s, which failed rate of the runs that judged it (rep among
// them), the best schedule.
func (sh *shrinker) accept(s schedule, rep *scenario.Report, rate FailRate) {
	sh.best, sh.bestRep, sh.bestRate = s, rep, rate
	sh.chain = append(sh.chain, s)
	size := s.size(sh.warmup)
	sh.passes = append(sh.passes, Pass{Pass: sh.pass, Faults: size.Faults, Length: size.Length})
}

func (sh *shrinker) progress() {
	if sh.cfg.Progress == nil {
		return
	}
	sh.cfg.Progress(Progress{
		Runs: sh.runsMade, Candidates: sh.candidates, Faults: len(sh.best.faults),
		Length: sh.best.length(sh.warmup), Pass: sh.pass, Elapsed: clock.Wall().Sub(sh.started),
	})
}

// baseline judges the original scenario as given, settles how candidates
// are judged (one run when the runs are virtual, unless the config says
// otherwise) and, without a predicate of the caller's, takes the first
// failing run's failure as the one to keep.
func (sh *shrinker) baseline(ctx context.Context) (*scenario.Report, FailRate, error) {
	sc := sh.cfg.Scenario
	var failing *scenario.Report
	var rate FailRate
	for {
		rep, err := sh.runOnce(ctx, sc, true)
		var invalid *invalidError
		if errors.As(err, &invalid) {
			return nil, rate, invalid.err
		}
		if err != nil {
			return nil, rate, err
		}
		if rate.Runs == 0 {
			sh.setJudge(rep.Virtual, rep.Clock.Deterministic())
		}
		rate.Runs++
		if sh.fails == nil && rep.Gate.Verdict == scenario.GateFailed {
			if sh.failure = Failure(rep); len(sh.failure) == 0 {
				return nil, rate, fmt.Errorf("%w: it fails only for want of time (outcome %s); give a predicate to shrink that", ErrNoFailure, rep.Outcome)
			}
			sh.fails = SameFailure(rep)
		}
		if sh.fails != nil && sh.failed(rep) {
			rate.Failed++
			failing = rep
		}
		if rate.Failed >= sh.need || rate.Runs-rate.Failed > sh.runs-sh.need {
			break
		}
	}
	if rate.Failed < sh.need {
		return nil, rate, fmt.Errorf("%w: %s (need %d of %d)", ErrNoFailure, rate, sh.need, sh.runs)
	}
	return failing, rate, nil
}

// setJudge: one run judges a candidate where a run is a function of its
// seed (a virtual or deterministic clock), Need of Runs elsewhere.
func (sh *shrinker) setJudge(virtual, deterministic bool) {
	sh.virtual = virtual
	switch {
	case sh.cfg.Runs > 0:
		sh.runs, sh.need = sh.cfg.Runs, sh.cfg.Need
	case virtual || deterministic:
		sh.runs, sh.need = 1, 1
	default:
		sh.runs, sh.need = DefaultRuns, DefaultNeed
	}
}

// replay measures s's failure rate over n runs, with the caller's context
// (the search's budget does not apply). It returns a failing run too.
func (sh *shrinker) replay(ctx context.Context, s schedule, n int) (FailRate, *scenario.Report, error) {
	var rate FailRate
	var failing *scenario.Report
	sc := s.scenario(sh.base)
	for range n {
		rep, err := sh.runOnce(ctx, sc, false)
		if err != nil {
			return rate, failing, err
		}
		rate.Runs++
		if sh.failed(rep) {
			rate.Failed++
			failing = rep
		}
	}
	return rate, failing, nil
}
