package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/bound"
	"github.com/ares-arena/arena/internal/faulterr"
)

// ObserveOptions tune how a run is observed. The zero value means defaults;
// observeFields lists each setting once, with its name, default and minimum.
type ObserveOptions struct {
	ProbeInterval    time.Duration // default 100ms
	ProbeTimeout     time.Duration // bound on one probe call; default 1s (a runtime may bound it tighter, e.g. containers.WithProbeTimeout)
	StableSamples    int           // default 3
	RecoveryDeadline time.Duration // default 30s
	SettleTime       time.Duration // default 10s; see FaultOutcome
	TimelineCap      int           // state changes kept in the report; default 10,000
	ListCap          int           // faults, checks and injection errors listed in the report; default 10,000
	Scoring          ScoreOptions
}

// Defaults of ObserveOptions.
const (
	DefaultProbeInterval    = 100 * time.Millisecond
	MinProbeInterval        = time.Millisecond
	DefaultProbeTimeout     = time.Second
	DefaultStableSamples    = 3
	DefaultRecoveryDeadline = 30 * time.Second
	DefaultSettleTime       = 10 * time.Second
	DefaultTimelineCap      = 10_000
	DefaultListCap          = 10_000
)

// observeField is one setting of ObserveOptions: a duration or a count.
type observeField struct {
	name     string // as in scenarios (config.observe), flags and errors
	doc      string
	dur      func(*ObserveOptions) *time.Duration
	count    func(*ObserveOptions) *int
	def, min int64 // in the field's unit; min applies to set (non-zero) values
	max      int64 // the largest value accepted
}

// Limits of the observation settings.
const (
	// MaxProbeInterval bounds probe_interval and probe_timeout.
	MaxProbeInterval = time.Hour
	// MaxStableSamples bounds stable_samples.
	MaxStableSamples = 10_000
	// MaxObserveWindow bounds recovery_deadline and settle_time.
	MaxObserveWindow = 24 * time.Hour
	// MaxListCap bounds timeline_cap and list_cap: the report's lists are
	// kept in memory and written whole.
	MaxListCap = 1_000_000
)

// observeFields is the one list of the observation settings: defaults,
// validation and merging all read it.
var observeFields = []observeField{
	{name: "probe_interval", doc: "how often the health probe is sampled", dur: func(o *ObserveOptions) *time.Duration { return &o.ProbeInterval }, def: int64(DefaultProbeInterval), min: int64(MinProbeInterval), max: int64(MaxProbeInterval)},
	{name: "probe_timeout", doc: "a probe call taking longer is cut off: an unhealthy sample", dur: func(o *ObserveOptions) *time.Duration { return &o.ProbeTimeout }, def: int64(DefaultProbeTimeout), min: int64(time.Millisecond), max: int64(MaxProbeInterval)},
	{name: "stable_samples", doc: "healthy samples in a row that make a recovery", count: func(o *ObserveOptions) *int { return &o.StableSamples }, def: DefaultStableSamples, min: 1, max: MaxStableSamples},
	{name: "recovery_deadline", doc: "a fault not healthy again within this is unrecovered", dur: func(o *ObserveOptions) *time.Duration { return &o.RecoveryDeadline }, def: int64(DefaultRecoveryDeadline), min: 1, max: int64(MaxObserveWindow)},
	{name: "settle_time", doc: "a fault is watched this long before it is called recovered; an unhealthy sample within it, even a lone one, is the fault's", dur: func(o *ObserveOptions) *time.Duration { return &o.SettleTime }, def: int64(DefaultSettleTime), min: 1, max: int64(MaxObserveWindow)},
	{name: "timeline_cap", doc: "state changes kept in the report", count: func(o *ObserveOptions) *int { return &o.TimelineCap }, def: DefaultTimelineCap, min: 1, max: MaxListCap},
	{name: "list_cap", doc: "faults, checks and injection errors listed in the report", count: func(o *ObserveOptions) *int { return &o.ListCap }, def: DefaultListCap, min: 1, max: MaxListCap},
}

// get returns the field's value in o, in its unit.
func (f observeField) get(o *ObserveOptions) int64 {
	if f.dur != nil {
		return int64(*f.dur(o))
	}
	return int64(*f.count(o))
}

func (f observeField) set(o *ObserveOptions, v int64) {
	if f.dur != nil {
		*f.dur(o) = time.Duration(v)
		return
	}
	*f.count(o) = int(v)
}

func (f observeField) text(v int64) string {
	if f.dur != nil {
		return bound.FormatDuration(time.Duration(v))
	}
	return fmt.Sprint(v)
}

// rangeText describes the values the field accepts (0 leaves the default).
func (f observeField) rangeText() string {
	if f.dur != nil {
		return bound.Range(time.Duration(f.min), time.Duration(f.max))
	}
	return fmt.Sprintf("%d to %d", f.min, f.max)
}

// check reports a value outside the field's range; 0 is the default.
func (f observeField) check(v int64) error {
	switch {
	case v < 0:
		return fmt.Errorf("%s: negative value %s (want %s)", f.name, f.text(v), f.rangeText())
	case v > 0 && v < f.min, v > f.max:
		return fmt.Errorf("%s: %s is out of range (want %s)", f.name, f.text(v), f.rangeText())
	}
	return nil
}

// CheckObserve checks a value of the observation setting named name
// ("probe_interval", as in a scenario's config.observe) against its range,
// in the setting's unit (nanoseconds or a count); 0 leaves the default and
// is always accepted. The error names the setting. An unknown name panics:
// the caller names a setting of its own code.
func CheckObserve(name string, v int64) error {
	for _, f := range observeFields {
		if f.name == name {
			return f.check(v)
		}
	}
	panic("arena: no observation setting " + name)
}

// ObserveSetting is one observation setting bound to a field of an
// ObserveOptions, for front ends (CLI flags) that set them by name.
type ObserveSetting struct {
	Name     string         // snake_case, as in a scenario's config.observe
	Doc      string         // what it does, with its default
	Duration *time.Duration // set for a duration
	Count    *int           // set for a count
	// Min and Max are the range of a value that is set (0 leaves the
	// default), in the setting's unit: nanoseconds or a count.
	Min, Max int64
}

// Settings returns o's observation settings (all but Scoring), bound to
// its fields, in documentation order.
func (o *ObserveOptions) Settings() []ObserveSetting {
	out := make([]ObserveSetting, 0, len(observeFields))
	for _, f := range observeFields {
		s := ObserveSetting{Name: f.name, Doc: fmt.Sprintf("%s (default %s; %s)", f.doc, f.text(f.def), f.rangeText()), Min: f.min, Max: f.max}
		if f.dur != nil {
			s.Duration = f.dur(o)
		} else {
			s.Count = f.count(o)
		}
		out = append(out, s)
	}
	return out
}

// WithDefaults returns o with every setting left at zero set to arena's
// default (DefaultProbeInterval, …), scoring options included.
func (o ObserveOptions) WithDefaults() ObserveOptions {
	for _, f := range observeFields {
		if f.get(&o) <= 0 {
			f.set(&o, f.def)
		}
	}
	o.Scoring = o.Scoring.withDefaults()
	return o
}

// Validate reports negative options, and set ones below their minimum, by
// field name.
func (o ObserveOptions) Validate() error {
	for _, f := range observeFields {
		if err := f.check(f.get(&o)); err != nil {
			return err
		}
	}
	return o.Scoring.Validate()
}

// Or returns o with its zero fields taken from def: a run's settings over
// the service's (WithObserveOptions), a scenario's over the run's.
func (o ObserveOptions) Or(def ObserveOptions) ObserveOptions {
	for _, f := range observeFields {
		if f.get(&o) == 0 {
			f.set(&o, f.get(&def))
		}
	}
	if o.Scoring.Weights == (Weights{}) {
		o.Scoring.Weights = def.Scoring.Weights
	}
	if o.Scoring.SpeedTarget == 0 {
		o.Scoring.SpeedTarget = def.Scoring.SpeedTarget
	}
	if o.Scoring.SpeedLimit == 0 {
		o.Scoring.SpeedLimit = def.Scoring.SpeedLimit
	}
	return o
}

// FaultOutcome is what became of one landed fault.
//
// A fault's time t (At) is when arena started landing it: the start of the
// injection call, not its return. A SIGKILL lands at the start of a stop call
// that may take seconds; samples taken while the call is in flight count
// against the fault, and InjectDuration says how long the call took. Every
// "at" in a report (faults, steps, injection errors) is this instant.
//
// TTR (time to recover) of a fault landed at t runs from t to the first probe
// sample at which the system is healthy and then stays healthy for
// StableSamples samples in a row (that sample included). If no sample from t
// on was unhealthy, the fault never degraded the system and its TTR is 0. A
// fault whose recovery sample is later than t + RecoveryDeadline is
// unrecovered. Samples at the instant of the injection see the fault (see
// EventKind).
//
// Effects lag: a tool timeout shows only when calls time out, an error rate
// only when tasks fail. So a fault is watched for SettleTime after it landed
// (and, for a fault with a duration, after arena lifts it: a partitioned
// node that rejoins can disrupt the system again) before it is called
// recovered: a healthy run that is broken within that
// time does not count, and the fault is recovered at the first stable run
// after the last unhealthy sample. A later injection cuts the settle time
// short for a fault already stably healthy then: it is recovered and
// checked before the next fault lands. The verdict, and the consistency checks
// that follow a recovery, come once both StableSamples and SettleTime have
// passed. When the run ends first, a fault whose last StableSamples samples
// were healthy is recovered (its checks are the end-of-run checks); any
// other open fault is undecided. A run whose schedule ends by itself first
// watches on until its faults are decided (overtime.go).
//
// A lone unhealthy sample inside the settle window counts: it is the
// fault's doing until SettleTime has passed, so the recovery moves to the
// first stable run after it and the TTR grows by the gap. arena cannot tell
// a blip of a busy machine from a relapse; if the probe blips, give it more
// time (ProbeTimeout) or the fault less watching (SettleTime), both settable
// per scenario under config.observe.
type FaultOutcome struct {
	Action fault.Action   `json:"action"`
	At     clock.Duration `json:"at"` // offset from the run's start of the injection call's start
	// InjectDuration is how long the injection call took.
	InjectDuration clock.Duration  `json:"inject_duration"`
	Degraded       bool            `json:"degraded"`
	Recovered      bool            `json:"recovered"`
	TTR            clock.Duration  `json:"ttr"`              // meaningful when Recovered
	Lifted         *clock.Duration `json:"lifted,omitempty"` // when arena lifted it (its duration was up)
	// HealedByRuntime is when the runtime's own mechanism ended the fault
	// before arena lifted it (see HealReporter).
	HealedByRuntime *clock.Duration `json:"healed_by_runtime,omitempty"`
	LiftError       string          `json:"lift_error,omitempty"`
	// Undecided: the run ended (stopped, aborted, cancelled, or at its
	// limit) before the fault could be called recovered or unrecovered. It
	// is listed, and left out of the recovery score: not observed long
	// enough is not a failure.
	Undecided bool          `json:"undecided,omitempty"`
	Checks    []CheckResult `json:"checks,omitempty"`
}

// CheckResult is one run of one consistency check.
type CheckResult struct {
	Name   string         `json:"name"`
	At     clock.Duration `json:"at"`
	Passed bool           `json:"passed"`
	// NotApplicable: the check had nothing to look at (ErrNotApplicable);
	// it is not measured, neither passed nor failed, and Error says why.
	NotApplicable bool `json:"not_applicable,omitempty"`
	// Undecided: the check ran out of its budget (ErrUndecided); it is not
	// measured either, and Error says how far it got.
	Undecided bool   `json:"undecided,omitempty"`
	Error     string `json:"error,omitempty"`
	// Violation: what the check found wrong, when its error carries one
	// (see Violation).
	Violation *fault.Violation `json:"violation,omitempty"`
	FaultID   string           `json:"fault_id,omitempty"` // empty for the end-of-run checks
}

// Transition is a change of the probe's verdict; the timeline of a report is
// its samples compressed to these.
type Transition struct {
	At      clock.Duration `json:"at"`
	Healthy bool           `json:"healthy"`
	Reason  string         `json:"reason,omitempty"`
}

// faultTrack follows one fault from its landing to its outcome.
type faultTrack struct {
	out     FaultOutcome
	landed  time.Time
	liftAt  time.Time     // when arena will lift it (zero: never); the settle time runs from then too
	runFrom time.Duration // first sample of the current healthy run, after landed (a distance: every sample reads it)
	runLen  int
	done    bool
}

// observer samples the probe on an executor's schedule, follows each landed
// fault to its outcome, runs consistency checks and scores the run.
type observer struct {
	ex     executor
	clock  clock.Kind // named in the report (NewRun sets it)
	probe  fault.Probe
	pwatch *probeWatch // bounds the probe in virtual time; nil in real time
	checks []fault.Check
	opts   ObserveOptions
	start  time.Time
	// onOutcome is told of each fault's final outcome (service metrics and
	// the evolution bridge listen here).
	onOutcome func(ctx context.Context, f FaultOutcome)
	// onFailed is told of each check result that failed (the evidence
	// store listens here).
	onFailed func(ctx context.Context, r CheckResult)
	// afterSample, when set, is called after each sample (a run's stop
	// conditions, abort.go).
	afterSample func(now time.Time)
	// onTransition, when set, is told of each change of health, timeline
	// cap or not (a run's arena.health.changed events, health_event.go).
	onTransition func(ctx context.Context, now time.Time, tr Transition)

	// The sampling chain: one event, re-armed at nextSample after each
	// sample until sampleEnd, with the same func (no closure per sample).
	// Only the running sample touches them.
	nextSample, sampleEnd time.Time
	sampleFn              func(ctx context.Context)
	armed                 bool // a sample is queued
	// overtimeDone, in overtime, is called (at the instant's phase edge)
	// once no fault is open; overtimeAsked says it has been scheduled.
	overtimeDone  func(ctx context.Context)
	overtimeAsked bool

	mu             sync.Mutex
	samples        int
	healthySamples int
	lastHealthy    int // -1 unknown, 0 unhealthy, 1 healthy
	timeline       []Transition
	dropped        int
	open           []*faultTrack
	awaiting       []*faultTrack // recovered, checks not run yet
	// Lists for the report are capped (ListCap); the tally keeps the totals
	// the score is computed from, so a week-long run has a flat heap.
	faults        []*faultTrack
	checkResults  []CheckResult
	injectionErrs []fault.Result
	tally         tally
	watched       watched
	// plan is how many faults the schedule means to land, when it said so
	// (planSet, Run.PlanFaults); otherwise the faults tried count (landing.go).
	plan    int
	planSet bool
	// inflight holds the start of each injection call in progress, and
	// recent the samples taken since the earliest of them: a fault is
	// followed from its start, so Landed replays these to it.
	inflight []time.Time
	recent   []sampleAt
}

// watched is what stop conditions read after each sample.
type watched struct {
	unhealthySince time.Time // zero: healthy at the last sample
	reason         string    // the probe's error then
	failed         map[string]string
	score          Score
}

// watch returns the state the stop conditions look at.
func (o *observer) watch() watched {
	o.mu.Lock()
	defer o.mu.Unlock()
	w := o.watched
	w.score = o.score()
	return w
}

type sampleAt struct {
	t       time.Time
	healthy bool
}

// tally is what the score and the TTR statistics need, in constant space.
type tally struct {
	landed, decided, recovered int
	faultsUndecided            int     // closed by the run's end without a verdict
	recoverySum                float64 // Σ over decided faults of 0.7·recovered + 0.3·speed
	ttrSum                     time.Duration
	ttrs                       map[time.Duration]int // recovered TTRs, exact; few keys in virtual time, where they fall on the probe grid
	checks, passed             int                   // checks that looked and decided; the others are notApplicable or undecided
	notApplicable, undecided   int
	injectionErrs              int
}

// landedFault is a handle on a landed fault, for reporting its lift.
type landedFault struct{ t *faultTrack }

// newObserver returns an observer for a run on ex that starts now. probe may
// be nil (availability and recovery are then unmeasured).
func newObserver(ex executor, probe fault.Probe, checks []fault.Check, opts ObserveOptions) *observer {
	clk := clock.KindReal
	if ex.Virtual() {
		clk = clock.KindVirtual
	}
	o := &observer{ex: ex, clock: clk, probe: probe, checks: checks, opts: opts.WithDefaults(), start: ex.Now(), lastHealthy: -1}
	if ex.Virtual() {
		o.pwatch = newProbeWatch(o.opts.ProbeTimeout)
	}
	return o
}

// Start schedules probe samples every ProbeInterval from the run's start up
// to and including end.
func (o *observer) Start(end time.Time) {
	if o.probe != nil {
		o.nextSample, o.sampleEnd = o.start, end
		o.sampleFn = o.sampleAndRearm
		o.armSample()
	}
}

func (o *observer) armSample() {
	if !o.armed && !o.nextSample.After(o.sampleEnd) {
		o.armed = true
		o.ex.sampleAt(o.nextSample, o.sampleFn)
	}
}

// extend samples on until end (overtime): done is called at the first
// instant at which no fault is unsettled.
func (o *observer) extend(end time.Time, done func(ctx context.Context)) {
	o.overtimeDone = done
	if o.probe != nil && end.After(o.sampleEnd) {
		o.sampleEnd = end
		o.armSample()
	}
}

func (o *observer) sampleAndRearm(ctx context.Context) {
	o.armed = false
	o.sample(ctx)
	o.nextSample = o.nextSample.Add(o.opts.ProbeInterval)
	o.armSample()
}

func (o *observer) offset(t time.Time) clock.Duration { return clock.Duration(t.Sub(o.start)) }

// sample probes the system. The sample is stamped with the clock's reading
// when it starts: in real time a late sample is not back-dated, so a fault
// landing while the probe runs is never fed a sample from before it. The
// probe's context ends after ProbeTimeout of wall time, on either clock (in
// virtual time through the watchdog, probeWatch).
func (o *observer) sample(ctx context.Context) {
	t := o.ex.Now()
	err := faulterr.Safely(func() error {
		if o.pwatch != nil {
			pctx := o.pwatch.begin(ctx)
			defer o.pwatch.end(pctx)
			return o.probe(pctx)
		}
		pctx := newLazyDeadline(ctx, o.opts.ProbeTimeout)
		defer pctx.release()
		return o.probe(pctx)
	})
	healthy := err == nil
	var recovered, lost []*faultTrack
	o.mu.Lock()
	o.samples++
	if healthy {
		o.healthySamples++
	}
	switch {
	case healthy:
		o.watched.unhealthySince, o.watched.reason = time.Time{}, ""
	case o.watched.unhealthySince.IsZero():
		o.watched.unhealthySince, o.watched.reason = t, err.Error()
	}
	var changed *Transition
	if h := b2i(healthy); h != o.lastHealthy {
		o.lastHealthy = h
		tr := Transition{At: o.offset(t), Healthy: healthy}
		if err != nil {
			tr.Reason = err.Error()
		}
		if len(o.timeline) < o.opts.TimelineCap {
			o.timeline = append(o.timeline, tr)
		} else {
			o.dropped++
		}
		changed = &tr
	}
	if len(o.inflight) > 0 {
		o.recent = append(o.recent, sampleAt{t, healthy})
	}
	o.open = slices.DeleteFunc(o.open, func(f *faultTrack) bool {
		o.advance(f, t, healthy)
		switch {
		case f.out.Recovered:
			recovered = append(recovered, f)
			o.awaiting = append(o.awaiting, f)
		case f.done:
			lost = append(lost, f)
		}
		if f.done {
			o.decide(f)
		}
		return f.done
	})
	var outs []FaultOutcome
	for _, f := range lost {
		outs = append(outs, f.out)
	}
	settled := o.overtimeDone != nil && !o.overtimeAsked && o.unsettled() == 0
	o.overtimeAsked = o.overtimeAsked || settled
	o.mu.Unlock()
	if changed != nil && o.onTransition != nil {
		o.onTransition(ctx, t, *changed)
	}
	for _, f := range recovered {
		o.ex.At(t, KindCheck, func(ctx context.Context) { o.checkAwaiting(ctx, f) })
	}
	if settled { // after the checks of this instant
		o.ex.At(t, KindPhase, o.overtimeDone)
	}
	o.tell(ctx, outs)
	if o.afterSample != nil {
		o.afterSample(t)
	}
}

// checkAwaiting runs the checks of a recovered fault, unless Finish has
// taken it over (the run ended before its check event).
func (o *observer) checkAwaiting(ctx context.Context, f *faultTrack) {
	o.mu.Lock()
	i := slices.Index(o.awaiting, f)
	if i >= 0 {
		o.awaiting = slices.Delete(o.awaiting, i, i+1)
	}
	o.mu.Unlock()
	if i >= 0 {
		o.runChecks(ctx, f)
	}
}

func (o *observer) tell(ctx context.Context, outs []FaultOutcome) {
	if o.onOutcome == nil {
		return
	}
	for _, out := range outs {
		o.onOutcome(ctx, out)
	}
}

// advance feeds one sample to an open fault. It closes the fault (done) when
// it recovers or misses its deadline.
func (o *observer) advance(f *faultTrack, t time.Time, healthy bool) {
	since := t.Sub(f.landed)
	if since < 0 {
		return // a real-time sample that started before the fault landed
	}
	if !healthy {
		f.out.Degraded = true
		f.runLen = 0
	} else {
		if f.runLen == 0 {
			f.runFrom = since
		}
		f.runLen++
	}
	if f.runLen > 0 && f.runFrom > o.opts.RecoveryDeadline {
		f.done = true // even if this run holds, it began too late
		return
	}
	if f.runLen == 0 && since > o.opts.RecoveryDeadline {
		f.done = true
		return
	}
	if f.runLen < o.opts.StableSamples || since < o.opts.SettleTime || (!f.liftAt.IsZero() && t.Sub(f.liftAt) < o.opts.SettleTime) {
		return
	}
	o.recover(f)
}

func (o *observer) recover(f *faultTrack) {
	f.done = true
	f.out.Recovered = true
	if f.out.Degraded {
		f.out.TTR = clock.Duration(f.runFrom)
	}
}

// undecided closes a fault the run did not watch long enough. Under mu.
func (o *observer) undecided(f *faultTrack) {
	f.done = true
	f.out.Undecided = true
	o.tally.faultsUndecided++
}

// decide adds a fault's verdict to the tally. Called once per fault, under mu.
func (o *observer) decide(f *faultTrack) {
	t := &o.tally
	t.decided++
	if !f.out.Recovered {
		return
	}
	ttr := f.out.TTR.D()
	t.recovered++
	t.recoverySum += 0.7 + 0.3*speed(ttr, o.opts.Scoring)
	t.ttrSum += ttr
	if t.ttrs == nil {
		t.ttrs = map[time.Duration]int{}
	}
	t.ttrs[ttr]++
}

// Landing marks the start of an injection call now and returns that instant,
// the fault's time: samples from then on are kept so that the fault, once
// Landed reports it, is followed from its start, not from the call's return.
// Every Landing is followed by a Landed with a Result whose StartedAt is the
// returned time.
func (o *observer) Landing() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.ex.Now()
	o.inflight = append(o.inflight, now)
	return now
}

// Landed records the result of an injection that started at res.StartedAt
// (see Landing) and took res.Duration. A fault that landed is followed to its
// outcome from its start; one that did not is listed as an injection error
// and kept out of the score.
func (o *observer) Landed(ctx context.Context, res fault.Result) landedFault {
	o.mu.Lock()
	flight := o.endFlight(res.StartedAt)
	if !res.Success {
		o.tally.injectionErrs++
		if len(o.injectionErrs) < o.opts.ListCap {
			o.injectionErrs = append(o.injectionErrs, res)
		}
		o.mu.Unlock()
		return landedFault{}
	}
	landed := res.StartedAt
	if landed.IsZero() {
		landed = o.ex.Now()
	}
	f := &faultTrack{out: FaultOutcome{Action: res.Action, At: o.offset(landed), InjectDuration: res.Duration}, landed: landed}
	o.tally.landed++
	if len(o.faults) < o.opts.ListCap {
		o.faults = append(o.faults, f)
	}
	if o.probe == nil {
		o.mu.Unlock()
		return landedFault{f}
	}
	for _, s := range flight {
		if !f.done {
			o.advance(f, s.t, s.healthy)
		}
	}
	if !f.done {
		o.open = append(o.open, f)
		o.mu.Unlock()
		return landedFault{f}
	}
	o.decide(f) // decided by the samples of a long call
	if f.out.Recovered {
		o.awaiting = append(o.awaiting, f)
		o.mu.Unlock()
		o.ex.At(o.ex.Now(), KindCheck, func(ctx context.Context) { o.checkAwaiting(ctx, f) })
		return landedFault{f}
	}
	out := f.out
	o.mu.Unlock()
	o.tell(ctx, []FaultOutcome{out})
	return landedFault{f}
}

// endFlight returns the samples taken since start, then forgets the
// in-flight injection that started then and the samples no other in-flight
// injection needs. Under mu.
func (o *observer) endFlight(start time.Time) []sampleAt {
	flight := slices.Clone(o.recent)
	if i := slices.IndexFunc(o.inflight, start.Equal); i >= 0 {
		o.inflight = slices.Delete(o.inflight, i, i+1)
	}
	if len(o.inflight) == 0 {
		o.recent = nil
		return flight
	}
	first := slices.MinFunc(o.inflight, time.Time.Compare)
	o.recent = slices.DeleteFunc(o.recent, func(s sampleAt) bool { return s.t.Before(first) })
	return flight
}

// Settle is called just before an injection. It cuts short the settle time
// of open faults that have been stably healthy since their last unhealthy
// sample: they are recovered now and their checks run now, before the next
// fault lands, so that what happens next is the next fault's doing.
func (o *observer) Settle(ctx context.Context) {
	o.mu.Lock()
	var settled []*faultTrack
	o.open = slices.DeleteFunc(o.open, func(f *faultTrack) bool {
		if f.runLen < o.opts.StableSamples {
			return false
		}
		o.recover(f)
		o.decide(f)
		settled = append(settled, f)
		return true
	})
	o.mu.Unlock()
	for _, f := range settled {
		o.runChecks(ctx, f)
	}
}

// Lifted records that the engine lifted fault f now (err is the runtime's
// answer).
func (o *observer) Lifted(f landedFault, err error) {
	if f.t == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	at := o.offset(o.ex.Now())
	f.t.out.Lifted = &at
	if err != nil {
		f.t.out.LiftError = err.Error()
	}
}

// unsettled counts the open faults that the run's end would leave
// undecided: those not healthy for StableSamples samples in a row. Under mu.
func (o *observer) unsettled() int {
	n := 0
	for _, f := range o.open {
		if f.runLen < o.opts.StableSamples {
			n++
		}
	}
	return n
}

// Unsettled is unsettled under the lock.
func (o *observer) Unsettled() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.unsettled()
}

// Open returns the number of landed faults still awaiting a verdict.
func (o *observer) Open() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.open)
}

// probed reports whether o samples a probe: without one no landed fault
// gets an outcome.
func (o *observer) probed() bool { return o.probe != nil }

func (o *observer) runChecks(ctx context.Context, f *faultTrack) {
	results := o.check(ctx)
	o.mu.Lock()
	for i := range results {
		results[i].FaultID = f.out.Action.ID
	}
	f.out.Checks = results
	o.record(results)
	out := f.out
	o.mu.Unlock()
	o.tellFailed(ctx, results)
	o.tell(ctx, []FaultOutcome{out})
}

// check runs every check once, now.
func (o *observer) check(ctx context.Context) []CheckResult {
	at := o.offset(o.ex.Now())
	results := make([]CheckResult, 0, len(o.checks))
	for _, c := range o.checks {
		err := faulterr.Safely(func() error { return c.Run(ctx) })
		results = append(results, o.checkResult(c.Name, at, err))
	}
	return results
}

// tellFailed tells onFailed of the failed results.
func (o *observer) tellFailed(ctx context.Context, results []CheckResult) {
	if o.onFailed == nil {
		return
	}
	for _, r := range results {
		if r.Failed() {
			o.onFailed(ctx, r)
		}
	}
}

// record adds check results to the tally and the capped list; under mu.
func (o *observer) record(results []CheckResult) {
	for _, r := range results {
		switch {
		case r.NotApplicable:
			o.tally.notApplicable++
		case r.Undecided:
			o.tally.undecided++
		default:
			o.tally.checks++
		}
		if r.Passed {
			o.tally.passed++
		} else if _, seen := o.watched.failed[r.Name]; r.Failed() && !seen {
			if o.watched.failed == nil {
				o.watched.failed = map[string]string{}
			}
			o.watched.failed[r.Name] = r.Error
		}
		if len(o.checkResults) < o.opts.ListCap {
			o.checkResults = append(o.checkResults, r)
		}
	}
}

// Finish closes the faults still open, runs the end-of-run checks and
// reports every outcome not reported yet. Call it once, after the executor
// has run: the checks come after everything of the final instant. Faults
// that recover at the end (and recovered faults whose check event the end
// cut off) get the end-of-run checks as theirs, so a violation they left
// still reaches the evolution bridge.
func (o *observer) Finish(ctx context.Context) {
	o.mu.Lock()
	var ended, lost []*faultTrack
	for _, f := range o.open {
		if f.runLen < o.opts.StableSamples {
			o.undecided(f) // not observed long enough: neither way
			lost = append(lost, f)
			continue
		}
		o.recover(f) // settled by the run's end
		o.decide(f)
		ended = append(ended, f)
	}
	ended = append(o.awaiting, ended...)
	o.open, o.awaiting = nil, nil
	o.mu.Unlock()

	results := o.check(ctx)
	o.mu.Lock()
	o.record(results)
	outs := make([]FaultOutcome, 0, len(lost)+len(ended))
	for _, f := range lost {
		outs = append(outs, f.out)
	}
	for _, f := range ended {
		f.out.Checks = slices.Clone(results)
		outs = append(outs, f.out)
	}
	o.mu.Unlock()
	o.tellFailed(ctx, results)
	o.tell(ctx, outs)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
