package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/bound"
)

// Survival errors.
var (
	// ErrSurvivalRunning: a survival run is already running on this service.
	ErrSurvivalRunning = errors.New("survival run already running")
	// ErrNoSurvival: StopSurvival was called with no survival run going.
	ErrNoSurvival = errors.New("no survival run")
)

// SurvivalConfig configures a survival run: seeded random chaos for a long
// time, against a system that must keep healing. The zero value of a field
// means its default.
//
// Its JSON form uses arena's duration encoding ("30m", or seconds).
type SurvivalConfig struct {
	Duration time.Duration `json:"duration"` // default 30m
	Interval time.Duration `json:"interval"` // time between injections; default 10s
	Seed     uint64        `json:"seed"`     // 0: drawn at random and reported
	// Mix weighs the action types; default: every type the injector can
	// land (user-defined ones too), weight 1. A type with weight 0 is never
	// chosen; one the runtime cannot land (ErrUnsupported) is left out with
	// a warning in the report.
	Mix map[fault.Type]float64 `json:"mix,omitempty"`
	// MaxActiveFaults bounds the faults awaiting a verdict (landed, not yet
	// recovered or given up); a tick at the bound injects nothing. Default 3.
	MaxActiveFaults int `json:"max_active_faults"`
	// Timed faults (pause, slow, partition, tool timeout, MCP, LLM) last a
	// seeded random lifetime in [MinLifetime, MaxLifetime], MinLifetime plus
	// a whole number of 100ms steps.
	MinLifetime time.Duration `json:"min_lifetime"` // default 2s
	MaxLifetime time.Duration `json:"max_lifetime"` // default 10s
	Targets     TargetFilter  `json:"targets"`
	// TimelineCap bounds the report's list of actions, and its list of
	// faults unless Observe.ListCap is set; default 1000.
	TimelineCap int `json:"timeline_cap"`
	// AbortWhen stops the run when a condition is met (see AbortWhen).
	AbortWhen AbortWhen `json:"abort_when,omitzero"`
	// AllowUnhealthyStart injects even when the system is not healthy at
	// the first tick; by default the run is then aborted before any fault.
	AllowUnhealthyStart bool           `json:"allow_unhealthy_start,omitempty"`
	Observe             ObserveOptions `json:"-"`
}

// survivalJSON is SurvivalConfig in JSON: its durations in arena's encoding
// (strings, or seconds when read), which shadow the embedded config's
// time.Duration fields; every other field is the config's own.
type survivalJSON struct {
	Duration    clock.Duration `json:"duration"`
	Interval    clock.Duration `json:"interval"`
	MinLifetime clock.Duration `json:"min_lifetime"`
	MaxLifetime clock.Duration `json:"max_lifetime"`
	*survivalFields
}

// survivalFields is SurvivalConfig without its JSON methods.
type survivalFields SurvivalConfig

// MarshalJSON writes durations as Go duration strings.
func (c SurvivalConfig) MarshalJSON() ([]byte, error) {
	return json.Marshal(survivalJSON{clock.Duration(c.Duration), clock.Duration(c.Interval),
		clock.Duration(c.MinLifetime), clock.Duration(c.MaxLifetime), (*survivalFields)(&c)})
}

// UnmarshalJSON reads durations as strings or numbers of seconds, and
// rejects unknown fields (a misspelt knob must not be silently ignored).
// Fields the JSON leaves out are zero (their defaults); Observe, which has
// no JSON form, is kept.
func (c *SurvivalConfig) UnmarshalJSON(b []byte) error {
	out := SurvivalConfig{Observe: c.Observe}
	j := survivalJSON{survivalFields: (*survivalFields)(&out)}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		// The wrong type of a field is named by its JSON path, not by the
		// Go types that read it ("survivalFields.seed").
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			t := *typ
			t.Field = strings.TrimPrefix(t.Field, "survivalFields.")
			t.Struct = "SurvivalConfig"
			return &t
		}
		return err
	}
	out.Duration, out.Interval = j.Duration.D(), j.Interval.D()
	out.MinLifetime, out.MaxLifetime = j.MinLifetime.D(), j.MaxLifetime.D()
	*c = out
	return nil
}

// TargetFilter narrows the agents survival may hit. Empty fields allow all.
// DAG faults (remove_node, remove_edge) are not filtered.
type TargetFilter struct {
	Types   []string `json:"types,omitempty"`   // agent types, e.g. ["worker"]
	Include []string `json:"include,omitempty"` // agent IDs
	Exclude []string `json:"exclude,omitempty"` // agent IDs never hit
}

func (f TargetFilter) allows(a fault.AgentInfo) bool {
	return (len(f.Types) == 0 || slices.Contains(f.Types, a.Type)) &&
		(len(f.Include) == 0 || slices.Contains(f.Include, a.ID)) &&
		!slices.Contains(f.Exclude, a.ID)
}

// Survival defaults.
const (
	DefaultSurvivalDuration    = 30 * time.Minute
	DefaultSurvivalInterval    = 10 * time.Second
	DefaultMaxActiveFaults     = 3
	DefaultMinLifetime         = 2 * time.Second
	DefaultMaxLifetime         = 10 * time.Second
	DefaultSurvivalTimelineCap = 1000
	// MinSurvivalInterval keeps a run's ticks countable: a day at 1ms is
	// 86.4 million injections already.
	MinSurvivalInterval = time.Millisecond
	// MaxSurvivalDuration bounds a survival run: thirty days, in virtual
	// time minutes of CPU.
	MaxSurvivalDuration = 30 * 24 * time.Hour
	// MaxSurvivalTicks bounds the injections a run may try
	// (duration/interval).
	MaxSurvivalTicks = 100_000_000
	// MaxSurvivalActiveFaults bounds max_active_faults.
	MaxSurvivalActiveFaults = 10_000
)

// normalize fills defaults and validates against the injector's providers.
// Errors name the field at fault; warnings say which types were left out of
// the mix because the runtime cannot land them.
func (c SurvivalConfig) normalize(in *fault.Injector) (_ SurvivalConfig, warnings []string, _ error) {
	for _, r := range []struct {
		name   string
		v, max time.Duration
	}{
		{"duration", c.Duration, MaxSurvivalDuration},
		{"interval", c.Interval, MaxSurvivalDuration},
		{"min_lifetime", c.MinLifetime, fault.MaxMetaDuration},
		{"max_lifetime", c.MaxLifetime, fault.MaxMetaDuration},
		{"abort_when.unhealthy_for", c.AbortWhen.UnhealthyFor.D(), MaxSurvivalDuration},
	} {
		switch {
		case r.v < 0:
			return c, nil, fmt.Errorf("%s: negative duration %s (want %s)", r.name, r.v, bound.Range(0, r.max))
		case r.v > r.max:
			return c, nil, fmt.Errorf("%s: %s is out of range (want %s)", r.name, bound.FormatDuration(r.v), bound.Range(0, r.max))
		}
	}
	for _, r := range []struct {
		name   string
		v, max int
	}{
		{"max_active_faults", c.MaxActiveFaults, MaxSurvivalActiveFaults},
		{"timeline_cap", c.TimelineCap, MaxListCap},
	} {
		if r.v < 0 || r.v > r.max {
			return c, nil, fmt.Errorf("%s: %d is out of range (want 1 to %d)", r.name, r.v, r.max)
		}
	}
	if c.Duration == 0 {
		c.Duration = DefaultSurvivalDuration
	}
	if c.Interval == 0 {
		c.Interval = min(DefaultSurvivalInterval, c.Duration/2)
	}
	switch {
	case c.Interval < MinSurvivalInterval:
		return c, nil, fmt.Errorf("interval: %s is below the minimum %s", c.Interval, MinSurvivalInterval)
	case c.Interval >= c.Duration:
		return c, nil, fmt.Errorf("interval: %s is not shorter than the duration %s", c.Interval, c.Duration)
	case c.Duration/c.Interval > MaxSurvivalTicks:
		return c, nil, fmt.Errorf("interval: %s makes %d ticks in %s (want at most %d: a longer interval)", c.Interval, c.Duration/c.Interval, bound.FormatDuration(c.Duration), MaxSurvivalTicks)
	}
	if c.MaxActiveFaults == 0 {
		c.MaxActiveFaults = DefaultMaxActiveFaults
	}
	if c.MinLifetime == 0 {
		c.MinLifetime = DefaultMinLifetime
		if c.MaxLifetime != 0 {
			c.MinLifetime = min(c.MinLifetime, c.MaxLifetime)
		}
	}
	if c.MaxLifetime == 0 {
		c.MaxLifetime = max(DefaultMaxLifetime, c.MinLifetime)
	}
	if c.MinLifetime > c.MaxLifetime {
		return c, nil, fmt.Errorf("min_lifetime: %s is longer than max_lifetime %s", c.MinLifetime, c.MaxLifetime)
	}
	if c.TimelineCap == 0 {
		c.TimelineCap = DefaultSurvivalTimelineCap
	}
	if c.Observe.ListCap == 0 { // the report's per-fault list too
		c.Observe.ListCap = c.TimelineCap
	}
	if c.Seed == 0 {
		c.Seed = DrawSeed()
	}
	if err := c.Observe.Validate(); err != nil {
		return c, nil, err
	}
	if len(c.Mix) == 0 {
		c.Mix = map[fault.Type]float64{}
		for _, spec := range in.FaultTypes() {
			switch err := in.Unsupported(spec.Type); {
			case err == nil:
				c.Mix[spec.Type] = 1
			case errors.Is(err, fault.ErrUnsupported):
				warnings = append(warnings, fmt.Sprintf("mix: %v: left out", err))
			}
		}
		if len(c.Mix) == 0 {
			return c, warnings, fmt.Errorf("mix: %w: the injector has no providers", fault.ErrNoRuntime)
		}
		return c, warnings, nil
	}
	mix, total := maps.Clone(c.Mix), 0.0
	for _, t := range slices.Sorted(maps.Keys(mix)) {
		w := mix[t]
		if _, ok := in.Fault(t); !ok {
			return c, nil, fmt.Errorf("mix.%s: unknown action type (want one of %s)", t, in.Registry().Names())
		}
		if !(w >= 0 && w <= MaxWeight) {
			return c, nil, fmt.Errorf("mix.%s: weight %v is out of range (want 0 to %g)", t, w, MaxWeight)
		}
		if err := in.Unsupported(t); w > 0 && err != nil {
			if !errors.Is(err, fault.ErrUnsupported) {
				return c, nil, fmt.Errorf("mix.%s: %w", t, err)
			}
			warnings = append(warnings, fmt.Sprintf("mix.%s: %v: left out", t, err))
			delete(mix, t)
			continue
		}
		total += w
	}
	if total == 0 {
		if len(warnings) > 0 {
			return c, warnings, fmt.Errorf("mix: no type this runtime can land (%s)", strings.Join(warnings, "; "))
		}
		return c, nil, fmt.Errorf("mix: every weight is zero")
	}
	c.Mix = mix
	return c, warnings, nil
}

// ParseMix reads a mix written as "kill_agent=2,llm_failure=1" (the CLI's
// --mix). A type without "=w" has weight 1.
func ParseMix(s string) (map[fault.Type]float64, error) {
	mix := map[fault.Type]float64{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, weight, hasWeight := strings.Cut(part, "=")
		t := fault.Type(strings.TrimSpace(name))
		if !t.Valid() {
			return nil, fmt.Errorf("mix: unknown action type %s (want one of %s)", bound.Quote(name), fault.NewRegistry().Names())
		}
		w := 1.0
		if hasWeight {
			var err error
			w, err = strconv.ParseFloat(strings.TrimSpace(weight), 64)
			if err != nil || !(w >= 0 && w <= MaxWeight) {
				return nil, fmt.Errorf("mix.%s: weight %s is not a number from 0 to %g", t, bound.Quote(weight), MaxWeight)
			}
		}
		if _, dup := mix[t]; dup {
			return nil, fmt.Errorf("mix.%s: given twice", t)
		}
		mix[t] = w
	}
	if len(mix) == 0 {
		return nil, fmt.Errorf("mix: empty")
	}
	return mix, nil
}

// SurvivalReport is the outcome of a survival run: the run's Report (score,
// grade, faults, TTR percentiles, timeline of health) plus what survival did.
//
// It embeds *Report, so rep.Score and rep.MTTR read as on any run; in JSON
// the run's report is the "report" object.
type SurvivalReport struct {
	*Report `json:"report"`
	Config  SurvivalConfig `json:"config"`  // as run, defaults filled and seed drawn
	Stopped bool           `json:"stopped"` // ended before its duration: stopped, interrupted or aborted
	// Ending says how the run ended: completed, stopped (StopSurvival),
	// interrupted (its context ended: SIGINT, a timeout) or aborted (a stop
	// condition, abort_when); Reason says why when it did not complete.
	Ending  SurvivalEnding                  `json:"ending"`
	Reason  string                          `json:"reason,omitempty"`
	Ticks   int                             `json:"ticks"`   // injection opportunities
	Actions int                             `json:"actions"` // injections attempted
	Skipped int                             `json:"skipped"` // ticks at max_active_faults or with nothing to hit
	ByType  map[fault.Type]FaultTypeOutcome `json:"by_type"`
	Events  []SurvivalEvent                 `json:"events"` // the first TimelineCap actions
	Dropped int                             `json:"events_dropped"`
	// Warnings name the fault types left out of the mix because the
	// runtime cannot land them.
	Warnings []string              `json:"warnings,omitempty"`
	byID     map[string]fault.Type // open faults, for per-type outcomes
}

// SurvivalEnding is how a survival run ended.
type SurvivalEnding string

// Survival endings.
const (
	SurvivalCompleted   SurvivalEnding = "completed"
	SurvivalStopped     SurvivalEnding = "stopped"
	SurvivalInterrupted SurvivalEnding = "interrupted"
	SurvivalAborted     SurvivalEnding = "aborted"
)

// FaultTypeOutcome counts what became of the actions of one type.
type FaultTypeOutcome struct {
	Attempted   int            `json:"attempted"`
	Landed      int            `json:"landed"`
	Failed      int            `json:"failed"` // did not land: injection errors
	Recovered   int            `json:"recovered"`
	Unrecovered int            `json:"unrecovered"`
	Undecided   int            `json:"undecided,omitempty"` // the run ended before their verdict
	MTTR        clock.Duration `json:"mttr"`
	ttrSum      time.Duration
}

// SurvivalEvent is one action of a survival run.
type SurvivalEvent struct {
	At       clock.Duration `json:"at"`
	ActionID string         `json:"action_id"`
	Type     fault.Type     `json:"type"`
	TargetID string         `json:"target_id,omitempty"`
	SourceID string         `json:"source_id,omitempty"`
	Lifetime clock.Duration `json:"lifetime,omitempty"`
	// Metadata is the action's metadata but its duration (Lifetime):
	// what survival drew for it, such as llm_failure's error_type.
	Metadata map[string]any `json:"metadata,omitempty"`
	Success  bool           `json:"success"`
	Error    string         `json:"error,omitempty"`
}

// SurvivalStatus is a live view of the running survival run.
type SurvivalStatus struct {
	Running  bool           `json:"running"`
	Seed     uint64         `json:"seed,omitempty"`
	Virtual  bool           `json:"virtual"`
	Progress float64        `json:"progress"` // 0–1 of the duration, on the run's clock
	Elapsed  clock.Duration `json:"elapsed"`  // on the run's clock (virtual time in a virtual run)
	Duration clock.Duration `json:"duration"`
	Actions  int            `json:"actions"`
	Active   int            `json:"active"` // faults awaiting a verdict
	Score    Score          `json:"score"`  // live
}

// survival is the state of the service's one survival run.
type survival struct {
	run  *Run
	cfg  SurvivalConfig
	done chan struct{}
	rep  *SurvivalReport
	err  error

	actions atomic.Int64 // read by SurvivalStatus
}

// RunSurvival runs seeded random chaos for cfg.Duration and returns the
// report. On a service with a *clock.Virtual it runs in virtual time: a day
// of chaos against the fakes takes seconds. Only one survival run may run
// at a time (ErrSurvivalRunning). StopSurvival ends it early with the report
// so far; cancelling ctx does the same and also returns ctx's error.
func (s *Service) RunSurvival(ctx context.Context, cfg SurvivalConfig) (*SurvivalReport, error) {
	cfg, warnings, err := cfg.normalize(s.injector)
	if err == nil && cfg.MaxLifetime > s.opts.maxFaultDuration {
		err = fmt.Errorf("max_lifetime: %s is over the maximum fault duration %s", cfg.MaxLifetime, s.opts.maxFaultDuration)
	}
	if err == nil {
		err = cfg.AbortWhen.Validate("abort_when", s.opts.checks)
	}
	if err != nil {
		return nil, fmt.Errorf("survival: %w", err)
	}
	r, err := s.NewRun(RunOptions{Seed: cfg.Seed, Duration: cfg.Duration, Observe: cfg.Observe, Origin: OriginSurvival})
	if err != nil {
		return nil, fmt.Errorf("survival: %w", err)
	}
	if err := r.AbortWhen(cfg.AbortWhen); err != nil { // validated above: only a programming error
		return nil, fmt.Errorf("survival: %w", err)
	}
	if !cfg.AllowUnhealthyStart {
		r.StartGate(cfg.Interval, "the first tick")
	}
	sv := &survival{run: r, cfg: cfg, done: make(chan struct{})}
	// Hold the service before the status shows the run: a refused run must
	// never look as if it had started. Play holds it from here on.
	if err := s.hold(ctx, r); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.survival != nil { // the last run released the service and is still finishing its report
		s.mu.Unlock()
		s.release(r)
		return nil, ErrSurvivalRunning
	}
	s.survival = sv
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.survival = nil
		s.mu.Unlock()
		close(sv.done)
	}()

	rep := &SurvivalReport{Config: cfg, ByType: map[fault.Type]FaultTypeOutcome{}, byID: map[string]fault.Type{}, Warnings: warnings}
	ch := &chaos{svc: s, sv: sv, rep: rep, rng: rand.New(rand.NewPCG(cfg.Seed^0x5eed, cfg.Seed))}
	r.onOutcome(ch.outcome)
	ch.schedule(cfg.Interval)
	run, err := r.Play(ctx)
	if run == nil {
		sv.err = err
		return nil, err // another run holds the service
	}
	rep.Report = run
	rep.Stopped = run.End.Before(r.End())
	switch {
	case run.Aborted != "":
		rep.Ending, rep.Reason = SurvivalAborted, run.Aborted
	case err != nil:
		rep.Ending, rep.Reason = SurvivalInterrupted, err.Error()
	case rep.Stopped:
		rep.Ending, rep.Reason = SurvivalStopped, "on request"
	default:
		rep.Ending = SurvivalCompleted
	}
	for t, o := range rep.ByType {
		if o.Recovered > 0 {
			o.MTTR = clock.Duration(o.ttrSum / time.Duration(o.Recovered))
			rep.ByType[t] = o
		}
	}
	rep.byID = nil
	sv.rep, sv.err = rep, err
	return rep, err
}

// SurvivalStatus returns the live status of the survival run, or a
// status with Running false when none is running.
func (s *Service) SurvivalStatus() SurvivalStatus {
	s.mu.Lock()
	sv := s.survival
	s.mu.Unlock()
	if sv == nil {
		return SurvivalStatus{}
	}
	r := sv.run
	elapsed := min(r.ex.Now().Sub(r.Start()), sv.cfg.Duration)
	return SurvivalStatus{
		Running: true, Seed: sv.cfg.Seed, Virtual: r.ex.Virtual(),
		Progress: float64(elapsed) / float64(sv.cfg.Duration),
		Elapsed:  clock.Duration(elapsed), Duration: clock.Duration(sv.cfg.Duration), Actions: int(sv.actions.Load()),
		Active: r.obs.Open(), Score: r.obs.Score(),
	}
}

// StopSurvival ends the running survival run after the event in progress
// and returns its final report.
func (s *Service) StopSurvival() (*SurvivalReport, error) {
	s.mu.Lock()
	sv := s.survival
	s.mu.Unlock()
	if sv == nil {
		return nil, ErrNoSurvival
	}
	sv.run.Stop()
	<-sv.done
	return sv.rep, sv.err
}

// chaos is the schedule of one survival run: a tick every interval chooses
// an action from the mix among the types that can land now, and a target
// from the system's state.
type chaos struct {
	svc    *Service
	sv     *survival
	rep    *SurvivalReport
	rng    *rand.Rand // survival's own stream; selectors use the run's
	flying atomic.Int64

	mu    sync.Mutex              // records and outcomes may come from concurrent injections in real time
	early map[string]FaultOutcome // outcomes decided before record saw the landing (real time)

	// Reused by choose (ticks run one at a time): the mix's types of
	// positive weight, sorted, with their specs (looked up once, not at
	// every tick), and the feasible ones with their weights.
	mix      []mixType
	feasible []fault.Type
	weights  []float64
	byStatus []statusCount
	// The system's lists, refilled by runtimes that append (state), or
	// kept in step through their feeds.
	agentBuf []fault.AgentInfo
	nodeBuf  []string
	edgeBuf  []fault.Edge
	view     systemView
}

// schedule adds the tick at offset t; each tick schedules the next, so the
// queue holds one tick however long the run.
func (c *chaos) schedule(t time.Duration) {
	if t <= 0 || t >= c.sv.cfg.Duration { // t <= 0: the sum overflowed
		return
	}
	c.sv.run.At(t, KindInject, func(ctx context.Context) {
		c.schedule(t + c.sv.cfg.Interval)
		c.tick(ctx)
	})
}

func (c *chaos) tick(ctx context.Context) {
	r := c.sv.run
	c.rep.Ticks++
	if r.obs.probed() && r.obs.Open()+c.inflight() >= c.sv.cfg.MaxActiveFaults {
		c.rep.Skipped++
		return
	}
	a, ok := c.choose(ctx)
	if !ok {
		c.rep.Skipped++
		return
	}
	c.sv.actions.Add(1)
	c.rep.Actions++
	c.flying.Add(1)
	r.ex.Go(func(ctx context.Context) {
		var p fault.Params
		res := r.inject(ctx, a, &p)
		c.record(r, res, p, a)
		c.flying.Add(-1)
	})
}

// inflight counts injections started and not yet returned (real time).
func (c *chaos) inflight() int { return int(c.flying.Load()) }

// record counts res, the result of a, which landed with parameters p.
func (c *chaos) record(r *Run, res fault.Result, p fault.Params, a fault.Action) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.rep.ByType[a.Type]
	o.Attempted++
	if res.Success {
		o.Landed++
		if f, ok := c.early[res.Action.ID]; ok {
			delete(c.early, res.Action.ID)
			o.count(f)
		} else if r.obs.probed() { // without a probe no outcome comes
			c.rep.byID[res.Action.ID] = a.Type
		}
	} else {
		o.Failed++
	}
	c.rep.ByType[a.Type] = o
	if len(c.rep.Events) >= c.sv.cfg.TimelineCap {
		c.rep.Dropped++
		return
	}
	ev := SurvivalEvent{
		At: clock.Duration(res.StartedAt.Sub(r.Start())), ActionID: res.Action.ID, Type: a.Type,
		TargetID: res.Action.TargetID, SourceID: res.Action.SourceID, Success: res.Success, Error: res.Error,
	}
	if spec := c.svc.injector.Binding(a.Type).Spec(); spec != nil && spec.Lifts {
		ev.Lifetime = clock.Duration(p.Duration)
	}
	for k, v := range a.Metadata {
		if k != fault.MetaDuration {
			if ev.Metadata == nil {
				ev.Metadata = map[string]any{}
			}
			ev.Metadata[k] = v
		}
	}
	c.rep.Events = append(c.rep.Events, ev)
}

func (c *chaos) outcome(f FaultOutcome) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.rep.byID[f.Action.ID]
	if !ok {
		if c.early == nil {
			c.early = map[string]FaultOutcome{}
		}
		c.early[f.Action.ID] = f
		return
	}
	delete(c.rep.byID, f.Action.ID)
	o := c.rep.ByType[t]
	o.count(f)
	c.rep.ByType[t] = o
}

func (o *FaultTypeOutcome) count(f FaultOutcome) {
	switch {
	case f.Recovered:
		o.Recovered++
		o.ttrSum += f.TTR.D()
	case f.Undecided:
		o.Undecided++
	default:
		o.Unrecovered++
	}
}

// choose draws an action type from the mix, restricted to the types that
// have a target now, and a target for it. Candidates are sorted before each
// seeded draw, so the choice depends only on the seed and the state.
func (c *chaos) choose(ctx context.Context) (fault.Action, bool) {
	st := c.state(ctx)
	if c.mix == nil {
		c.mix = c.mixTypes()
	}
	feasible, weights := c.feasible[:0], c.weights[:0]
	total := 0.0
	for _, m := range c.mix {
		if st.count(m.spec, 1) > 0 {
			feasible = append(feasible, m.typ)
			weights = append(weights, m.weight)
			total += m.weight
		}
	}
	c.feasible, c.weights = feasible, weights
	if len(feasible) == 0 {
		return fault.Action{}, false
	}
	x := c.rng.Float64() * total
	t := feasible[len(feasible)-1]
	for i, w := range weights {
		if x < w {
			t = feasible[i]
			break
		}
		x -= w
	}
	spec := c.spec(t)
	pick := st.nth(spec, c.rng.IntN(st.count(spec, -1)))
	a := fault.Action{Type: t}
	switch spec.Target {
	case fault.TargetEdge:
		a.SourceID, a.TargetID = pick.src, pick.id
	case fault.TargetAgent, fault.TargetNode:
		a.TargetID = pick.id
	}
	// A lifetime for a timed fault, then a draw for each key with a set of
	// values (llm_failure's error_type); other keys keep their defaults.
	if spec.Lifts {
		a.Metadata = map[string]any{fault.MetaDuration: c.lifetime().String()}
	}
	for _, k := range spec.Metadata {
		if len(k.Enum) > 0 {
			if a.Metadata == nil {
				a.Metadata = map[string]any{}
			}
			a.Metadata[k.Name] = k.Enum[c.rng.IntN(len(k.Enum))]
		}
	}
	return a, true
}

// mixType is a type of the mix, with its weight and spec.
type mixType struct {
	typ    fault.Type
	weight float64
	spec   *fault.Spec
}

// mixTypes returns the types of the mix with a positive weight, sorted.
func (c *chaos) mixTypes() []mixType {
	mix := make([]mixType, 0, len(c.sv.cfg.Mix))
	for _, t := range slices.Sorted(maps.Keys(c.sv.cfg.Mix)) {
		if w := c.sv.cfg.Mix[t]; w > 0 {
			mix = append(mix, mixType{t, w, c.spec(t)})
		}
	}
	return mix
}

// spec returns the spec of t, a type of the mix: SurvivalConfig.normalize
// refuses a mix with a type the injector does not know, so it is never nil.
func (c *chaos) spec(t fault.Type) *fault.Spec {
	return c.svc.injector.Binding(t).Spec()
}

func (c *chaos) lifetime() time.Duration {
	lo, hi := c.sv.cfg.MinLifetime, c.sv.cfg.MaxLifetime
	steps := int64((hi - lo) / (100 * time.Millisecond))
	return lo + time.Duration(c.rng.Int64N(steps+1))*100*time.Millisecond
}
