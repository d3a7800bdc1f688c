package engine

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// RunOptions configure one observed run.
type RunOptions struct {
	Seed     uint64         // 0: drawn at random and reported in the report
	Duration time.Duration  // how long the run is observed; required
	Observe  ObserveOptions // zero fields: the service's defaults (WithObserveOptions), then arena's

	// Origin and Name say what the run plays, for the active-fault
	// registry, RunActiveError and RunStatus: OriginRun (the default) for
	// a code-defined schedule, OriginScenario with the scenario's name,
	// OriginSurvival.
	Origin FaultOrigin
	Name   string
	// Planned is how long the schedule's plan takes when the run is
	// allowed longer (a scenario within its timeout): RunStatus measures
	// progress against it. 0: Duration.
	Planned time.Duration
	// Limit makes Duration a time limit rather than the plan: a run that
	// reaches it timed out, and does not go on watching its faults past
	// it. A schedule that completes before it (Run.Complete) may still
	// watch them until the limit (see Report.Overtime).
	Limit bool
}

// Run is one observed run on a service: an executor (virtual when the
// service's clock is a *clock.Virtual), an observer sampling the system's
// probe, and a seeded random source for target selectors. Schedules (a code
// list, a scenario, survival) are added with At and Inject, then Play runs it.
type Run struct {
	svc    *Service
	ex     executor
	obs    *observer
	seed   uint64
	start  time.Time
	end    time.Time
	opts   ObserveOptions
	id     string      // "run-N", numbering the service's runs
	origin FaultOrigin // what kind of run: run, scenario, survival
	name   string      // the scenario's name, for RunActiveError
	// planned is how long a scenario's plan takes (its run is allowed
	// longer); 0: the run's duration is its plan (RunStatus).
	planned time.Duration

	// How the run may go on past its schedule (overtime): a schedule that
	// reaches its end, or completes (Complete), keeps watching the faults it
	// landed until each is decided, at most overtimeLimit; one stopped on
	// request, aborted or cancelled does not. A run whose Duration is a
	// limit (RunOptions.Limit: scenarios) has overtimeAtEnd false and bound
	// at its end: there, reaching the end is the timeout.
	overtimeAtEnd bool
	bound         time.Time // overtime never goes past this (zero: no bound but its own)

	mu        sync.Mutex
	aborted   string // why a stop condition ended the run (abort.go)
	halted    bool   // Stop was called: the run ends now, without overtime
	completed bool   // the schedule said it is over (Complete)
	overtime  time.Duration
	rng       *rand.Rand
	shared    *rand.Rand // rng behind mu, for concurrent callers; made once, not per action
	listeners []func(FaultOutcome)
	// Real time only: the lifts of faults with a duration (Inject).
	liftTimers    []*time.Timer
	timersStopped bool
}

// NewRun prepares a run starting now on the service's clock.
func (s *Service) NewRun(opts RunOptions) (*Run, error) {
	if opts.Duration <= 0 {
		return nil, fmt.Errorf("duration: must be positive, got %s", opts.Duration)
	}
	obs := opts.Observe.Or(s.opts.observe)
	if err := obs.Validate(); err != nil {
		return nil, err
	}
	if opts.Planned < 0 || opts.Planned > opts.Duration {
		return nil, fmt.Errorf("planned: %s is outside the run's duration %s", opts.Planned, opts.Duration)
	}
	switch opts.Origin {
	case "":
		opts.Origin = OriginRun
	case OriginRun, OriginScenario, OriginSurvival:
	default:
		return nil, fmt.Errorf("origin: a run is %s, %s or %s, not %q", OriginRun, OriginScenario, OriginSurvival, opts.Origin)
	}
	if opts.Seed == 0 {
		opts.Seed = DrawSeed()
	}
	var ex executor
	if vc, ok := s.opts.clock.(*clock.Virtual); ok {
		ex = newVirtualExecutor(vc)
	} else {
		ex = newRealExecutor(s.opts.clock)
	}
	r := &Run{
		svc: s, ex: ex, seed: opts.Seed, start: ex.Now(), opts: obs.WithDefaults(),
		id: fmt.Sprintf("run-%d", s.runIDs.Add(1)), origin: opts.Origin, name: opts.Name,
		planned: opts.Planned, overtimeAtEnd: !opts.Limit,
		rng: rand.New(rand.NewPCG(opts.Seed, opts.Seed^seedMix)),
	}
	r.shared = lockedRand(&r.mu, r.rng)
	r.end = r.start.Add(opts.Duration)
	if opts.Limit {
		r.bound = r.end // reaching the limit is the timeout: no overtime past it
	}
	r.obs = newObserver(ex, s.opts.probe, s.opts.checks, obs)
	r.obs.clock = clock.KindOf(s.opts.clock)
	var (
		vmu        sync.Mutex // checks may run on several goroutines in real time
		violations int        // numbers the evidence of the run's failed checks
	)
	r.obs.onFailed = func(ctx context.Context, c CheckResult) {
		vmu.Lock()
		violations++
		id := fmt.Sprintf("ev-%s-check-%d", r.id, violations)
		vmu.Unlock()
		s.storeEvidence(ctx, Evidence{ID: id, ActionID: c.FaultID, Kind: EvidenceViolation, Time: ex.Now(), Check: &c, RunID: r.id})
	}
	r.obs.onTransition = r.healthChanged
	r.obs.onOutcome = func(ctx context.Context, f FaultOutcome) {
		s.faultOutcome(ctx, f, r.opts.Scoring.SpeedLimit, ex.Now())
		r.mu.Lock()
		ls := r.listeners
		r.mu.Unlock()
		for _, l := range ls {
			l(f)
		}
	}
	return r, nil
}

// DrawSeed returns a random non-zero seed, for runs that were given none.
func DrawSeed() uint64 {
	var b [8]byte
	for {
		_, _ = crand.Read(b[:])
		if s := binary.LittleEndian.Uint64(b[:]) >> 1; s != 0 {
			return s // 63 bits: survives JSON numbers and flags as an int64
		}
	}
}

// Virtual reports whether the run plays on a virtual clock: its events run
// at once in (time, sequence) order, and it takes no wall time.
func (r *Run) Virtual() bool { return r.ex.Virtual() }

// Now returns the time on the run's clock.
func (r *Run) Now() time.Time { return r.ex.Now() }

// Go runs fn, from an event of the run (At), concurrently with the run's
// events in real time, and at once, on the run's goroutine, in virtual
// time (where an injection takes no time). Play waits for it before it
// returns.
func (r *Run) Go(fn func(ctx context.Context)) { r.ex.Go(fn) }

// Seed returns the run's seed.
func (r *Run) Seed() uint64 { return r.seed }

// Start returns the run's start time on its clock.
func (r *Run) Start() time.Time { return r.start }

// End returns when the run ends.
func (r *Run) End() time.Time { return r.end }

// Rand returns the run's seeded generator. It is safe for concurrent use;
// draws from it in a fixed order keep a virtual run reproducible.
func (r *Run) Rand() *rand.Rand { return r.lockedRand() }

func (r *Run) lockedRand() *rand.Rand { return r.shared }

// At schedules fn at offset from the run's start.
func (r *Run) At(offset time.Duration, kind EventKind, fn func(ctx context.Context)) {
	r.ex.At(r.start.Add(offset), kind, fn)
}

// Inject executes a now, as part of this run: its target is chosen with the
// run's seed, the observer follows the fault, and a fault with a `duration`
// is lifted when it has elapsed.
func (r *Run) Inject(ctx context.Context, a fault.Action) fault.Result {
	var p fault.Params
	return r.inject(ctx, a, &p)
}

// inject is Inject; it sets *p to the parameters the action landed with.
func (r *Run) inject(ctx context.Context, a fault.Action, p *fault.Params) fault.Result {
	res := r.svc.execute(ctx, a, r, p) // settles earlier faults once the action is valid
	flt := r.obs.Landed(ctx, res)
	if !res.Success || p.Duration <= 0 || !r.svc.injector.CanLift(res.Action.Type) {
		return res // a runtime that cannot lift leaves the fault to the system
	}
	seq := r.svc.seqOf(res.Action.ID) // this fault's, not a later one's given its ID (0: not in the registry)
	lift := func(ctx context.Context) {
		if t, ok := r.svc.injector.HealedAt(res.Action, res.StartedAt); ok {
			r.obs.Healed(flt, t)
		}
		if seq == 0 {
			return
		}
		if found, err := r.svc.lift(ctx, res.Action.ID, seq, "duration"); found { // not if lifted on request meanwhile
			r.obs.Lifted(flt, err)
		}
	}
	if r.ex.Virtual() {
		liftAt := r.ex.Now().Add(p.Duration)
		r.obs.Lifting(flt, liftAt)
		r.ex.At(liftAt, KindLift, lift)
		return res
	}
	// In real time the duration counts from the start of landing, and the
	// lift has a timer of its own: the run's events (probe samples,
	// consistency checks, other lifts) may hang on the faulted agents for a
	// while, and must not make it late.
	liftAt := res.StartedAt.Add(p.Duration)
	r.obs.Lifting(flt, liftAt)
	r.liftTimer(liftAt, lift)
	return res
}

// liftTimer runs lift at t in real time, bounded by the rollback timeout,
// unless the run has ended (its rollback lifts the fault then).
func (r *Run) liftTimer(t time.Time, lift func(ctx context.Context)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timersStopped {
		return
	}
	r.liftTimers = append(r.liftTimers, time.AfterFunc(t.Sub(r.ex.Now()), func() {
		ctx, cancel := context.WithTimeout(context.Background(), r.svc.opts.rollbackTimeout)
		defer cancel()
		lift(ctx)
	}))
}

// stopLiftTimers stops the lift timers still pending: the run is over, and
// its rollback lifts those faults (it waits for the lifts under way).
func (r *Run) stopLiftTimers() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timersStopped = true
	for _, t := range r.liftTimers {
		t.Stop()
	}
	r.liftTimers = nil
}

// Step is one action of a code-defined schedule, injected At after the start.
type Step struct {
	At     time.Duration
	Action fault.Action
}

// Schedule adds steps to the run. In real time each injection runs on its own
// goroutine, so a slow provider call does not delay the next step.
func (r *Run) Schedule(steps ...Step) {
	for _, st := range steps {
		r.At(st.At, KindInject, func(ctx context.Context) {
			r.Go(func(ctx context.Context) { r.Inject(ctx, st.Action) })
		})
	}
}

// ErrClockBusy: a virtual run was played while another run drives the same
// virtual clock, or after the clock moved on since NewRun. A virtual clock
// serves one run at a time: two interleaved runs would each see the other's
// time jumps.
var ErrClockBusy = errors.New("virtual clock in use by another run")

// Play runs the schedule to the end and returns the report. If ctx ends
// first, it returns the report of what was observed with ctx's error.
//
// The run holds the service while it plays (a second run gets a
// *RunActiveError). However it ends (completed, stopped, cancelled, timed
// out, or an event panicked), the faults it landed that arena can still
// lift are lifted, within the service's rollback timeout, and the report's
// Rollback says what became of each, and of the faults left to the
// system's healing.
func (r *Run) Play(ctx context.Context) (rep *Report, err error) {
	if err := r.svc.hold(ctx, r); err != nil {
		return nil, err
	}
	defer r.svc.release(r)
	rolledBack := false
	defer func() {
		if !rolledBack { // an event panicked: lift what the run landed all the same
			r.stopLiftTimers()
			r.svc.rollback(ctx, r)
		}
	}()
	if vc, ok := r.svc.opts.clock.(*clock.Virtual); ok && r.ex.Virtual() {
		release, ok := vc.Acquire()
		if !ok {
			return nil, ErrClockBusy
		}
		defer release()
		if !vc.Now().Equal(r.start) {
			return nil, fmt.Errorf("%w: it moved %s since the run was made", ErrClockBusy, vc.Now().Sub(r.start))
		}
	}
	wall := clock.Wall()            // time.Now is fake in a synctest bubble
	outside := r.svc.ActiveFaults() // none is this run's yet
	r.obs.Start(r.end)
	err = r.ex.Run(ctx, r.end)
	if err == nil && r.wantsOvertime() {
		err = r.playOvertime(ctx)
	}
	r.stopLiftTimers()
	r.obs.Finish(context.WithoutCancel(ctx)) // a cancelled run still gets its end-of-run checks
	rep = r.obs.Report(r.seed)
	rep.Aborted = r.Aborted()
	rep.Overtime = clock.Duration(r.overtimeTaken())
	if len(outside) > 0 {
		rep.OutsideFaults = outside
	}
	rep.Rollback = append(r.svc.rollback(ctx, r), r.svc.leftToHeal(rep)...)
	rolledBack = true
	rep.WallTime = clock.Duration(clock.Wall().Sub(wall))
	if err == nil {
		r.svc.runCompleted(rep.Score)
		r.svc.appendEvent(ctx, EventRunCompleted, rep.End, rep.Score)
	}
	return rep, err
}

// onOutcome registers fn to hear each fault's final outcome, as the
// observer decides it (schedules use it to track what is still active).
func (r *Run) onOutcome(fn func(FaultOutcome)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.listeners = append(r.listeners, fn)
}

// Stop ends the run after the current event; Play then finishes the report
// at that instant: faults still awaiting a verdict are reported undecided
// (not observed long enough), never unrecovered.
func (r *Run) Stop() {
	r.mu.Lock()
	r.halted = true
	r.mu.Unlock()
	r.ex.Stop()
}

// Complete ends the run's schedule after the current event: schedules whose
// end depends on what happens (the last step done, then a cooldown) call it
// from an event at that time. Unlike Stop, the run then goes on watching
// the faults it landed until each is decided (see Report.Overtime).
func (r *Run) Complete() {
	r.mu.Lock()
	r.completed = true
	r.mu.Unlock()
	r.ex.Stop()
}

// RunSchedule plays a code-defined schedule against the service's system and
// returns the scored report. It is the smallest complete use of the engine:
//
//	rep, err := RunSchedule(ctx, svc, RunOptions{Seed: 7, Duration: time.Minute},
//		Step{At: 5 * time.Second, Action: fault.Action{Type: fault.KillLeader}})
func RunSchedule(ctx context.Context, svc *Service, opts RunOptions, steps ...Step) (*Report, error) {
	for i, st := range steps {
		if st.At < 0 {
			return nil, fmt.Errorf("steps[%d].at: negative offset %s", i, st.At)
		}
		if st.At > opts.Duration {
			return nil, fmt.Errorf("steps[%d].at: %s is after the run's end %s", i, st.At, opts.Duration)
		}
		if err := svc.injector.Validate(st.Action); err != nil {
			return nil, fmt.Errorf("steps[%d].action.%w", i, err)
		}
		if err := svc.injector.Unsupported(st.Action.Type); errors.Is(err, fault.ErrUnsupported) {
			return nil, fmt.Errorf("steps[%d].action.type: %w", i, err)
		}
	}
	// Every target must resolve against what the system lists before the
	// run starts; a role nobody holds yet (no leader elected) may be
	// elected meanwhile, and is resolved when its step lands.
	if ctx.Err() == nil { // cancelled already: the run ends at once
		targets, err := svc.injector.Targets(ctx)
		if err != nil {
			return nil, fmt.Errorf("resolve targets: %w", err)
		}
		for i, st := range steps {
			var te *fault.TargetError
			if err := targets.Check(st.Action); errors.As(err, &te) && te.Role == "" {
				return nil, fmt.Errorf("steps[%d].action.%s: %w", i, te.Field, err)
			}
		}
	}
	r, err := svc.NewRun(opts)
	if err != nil {
		return nil, err
	}
	r.Schedule(steps...)
	return r.Play(ctx)
}
