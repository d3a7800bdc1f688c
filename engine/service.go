package engine

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/faulterr"
)

// EventStore is where the service appends its events. events.MemoryStore is
// the embedded default. Append takes ownership of the events' Data and
// Metadata but must not keep evs itself after it returns (the service
// reuses that slice).
type EventStore interface {
	Append(ctx context.Context, stream string, evs []events.Event, expectedVersion uint64) (uint64, error)
	StreamVersion(ctx context.Context, stream string) (uint64, error)
}

// eventAppender is an EventStore that appends one event without a slice to
// hold it (events.MemoryStore): the service appends one per action.
type eventAppender interface {
	AppendEvent(ctx context.Context, stream string, e events.Event, expectedVersion uint64) (uint64, error)
}

// The stream and event types the service writes.
const (
	EventStream         = "arena"
	EventActionExecuted = "arena.action.executed"
	EventActionFailed   = "arena.action.failed"
	EventFaultRecovered = "arena.fault.recovered"
	EventFaultLost      = "arena.fault.unrecovered"
	EventFaultUndecided = "arena.fault.undecided" // the run ended before its verdict (FaultOutcome.Undecided)
	EventRunCompleted   = "arena.run.completed"
)

// invalidType is the stats and metrics key of actions whose type is unknown.
const invalidType fault.Type = "invalid"

// ActionEvent is the payload of arena.action.* events.
type ActionEvent struct {
	ActionID string         `json:"action_id"`
	Type     fault.Type     `json:"type"`
	TargetID string         `json:"target_id,omitempty"`
	SourceID string         `json:"source_id,omitempty"`
	Success  bool           `json:"success"`
	Error    string         `json:"error,omitempty"`
	Duration clock.Duration `json:"duration"`
}

// Service executes actions and runs observed runs. It is safe for concurrent use.
type Service struct {
	injector *fault.Injector
	store    EventStore
	appender eventAppender // store, when it appends one event at a time
	evidence EvidenceStore
	opts     serviceOptions
	metrics  *metrics
	ids      atomic.Uint64 // the last action ID's number
	idBlocks idBlocks      // the strings of the IDs
	runIDs   atomic.Uint64
	// born is when the service was made: time.Since(born) reads only the
	// monotonic clock, half of what time.Now reads, so Execute times its
	// latency with two of those.
	born time.Time
	// version is the arena stream's version as of the service's last
	// append: the expected version of its next one, so that an append
	// needs no read first unless someone else appended meanwhile.
	version atomic.Uint64
	faults  activeFaults // see faults_active.go

	mu       sync.Mutex
	payloads payloadSlab // where action and lift events are encoded
	rng      *rand.Rand  // for selectors outside a run
	shared   *rand.Rand  // rng behind mu, for concurrent callers
	stats    Stats       // ByType is nil: the counts are in byType
	byType   map[fault.Type]*FaultTypeStats
	byKind   []*FaultTypeStats // byType's counters of the injector's types, by Binding.Index()
	history  history
	survival *survival   // the running survival run, if any
	holder   *Run        // the run that holds the service (run_guard.go)
	leased   *Lease      // the A/B test that holds it, admitting its trials' runs
	held     atomic.Bool // holder or leased is set (markHeld)
}

// NewService returns a service over injector. store and evidence may be nil
// (no events, no evidence). A nil injector is a programmer error and panics.
func NewService(injector *fault.Injector, store EventStore, evidence EvidenceStore, opts ...Option) *Service {
	if injector == nil {
		panic("arena: NewService: nil injector")
	}
	o := defaultServiceOptions()
	for _, opt := range opts {
		opt.apply(&o)
	}
	s := &Service{
		injector: injector, store: store, evidence: evidence, opts: o,
		metrics: newMetrics(o.registerer, injector.Registry().Len()), // an injector's kinds are fixed when it is made
		rng:     rand.New(rand.NewPCG(o.seed, o.seed^seedMix)),
		history: history{cap: o.historyCap}, born: time.Now(),
	}
	s.shared = lockedRand(&s.mu, s.rng)
	s.byType = map[fault.Type]*FaultTypeStats{}
	s.byKind = make([]*FaultTypeStats, injector.Registry().Len()) // an injector's kinds are fixed when it is made
	s.appender, _ = store.(eventAppender)
	return s
}

// seedMix is the second word of every PCG seeded from a uint64 seed.
const seedMix = 0x9e3779b97f4a7c15

// Injector returns the service's injector.
func (s *Service) Injector() *fault.Injector { return s.injector }

// ObserveOptions returns the service's observation settings
// (WithObserveOptions): a run's own settings take their zero fields from
// them.
func (s *Service) ObserveOptions() ObserveOptions { return s.opts.observe }

// Checks returns the system's consistency checks (WithChecks).
func (s *Service) Checks() []fault.Check { return slices.Clone(s.opts.checks) }

// Clock returns the service's clock (the system's clock for runs).
func (s *Service) Clock() clock.Clock { return s.opts.clock }

// Execute validates a, resolves its target, lands it, and records the result
// in stats, history, metrics, the event stream, evidence and the flight
// recorder. It never panics and never returns a nil-valued result: a fault
// that did not land is a Result with Success false and Error set. A fault
// arena can lift enters the active-fault registry (ActiveFaults); outside a
// run it is refused while a run holds the service (see Admit).
func (s *Service) Execute(ctx context.Context, a fault.Action) fault.Result {
	return s.execute(ctx, a, nil, nil)
}

// execute is Execute, as part of run when run is not nil: the run's clock
// and seeded selectors, and the run's observer settled before the fault.
// When landed is not nil, it is set to the action's parameters as decoded
// to land it, so that a run need not decode its metadata again.
func (s *Service) execute(ctx context.Context, a fault.Action, run *Run, landed *fault.Params) fault.Result {
	clk := s.opts.clock
	if run != nil {
		clk = run.ex
	}
	wallStart := time.Since(s.born)
	start := clk.Now()
	given := a.ID != ""
	if !given {
		a.ID = s.idBlocks.id(s.ids.Add(1))
	}
	if a.CreatedAt.IsZero() {
		a.CreatedAt = start
	}
	prepared, params, kind, err := s.injector.Resolve(ctx, a, s.selectorRand(run))
	var lift fault.Lift
	if err == nil && given {
		err = checkGivenID(a.ID)
	}
	if err == nil {
		err = s.admit(ctx, prepared, given, params, run) // duration bound; refused outside a run that holds the service
	}
	if err == nil {
		start = clk.Now()
		if run != nil {
			run.obs.Settle(ctx)       // the next fault's impact is its own
			start = run.obs.Landing() // the fault's time: when arena starts landing it
		}
		lift, err = s.injector.Land(ctx, kind, prepared, params)
	}
	res := fault.Result{Action: prepared, Success: err == nil, Err: err, StartedAt: start, Duration: clock.Duration(clk.Now().Sub(start))}
	if err != nil {
		res.Error = err.Error()
	} else {
		s.track(&res, given, params, kind, run, lift) // into the active-fault registry, if arena can lift it
	}
	if payload := s.record(&res, kind, time.Since(s.born)-wallStart); payload != nil {
		s.appendEncoded(ctx, actionEventType(res), start, payload)
	}
	if !res.Success {
		s.storeEvidence(ctx, Evidence{ID: "ev-" + res.Action.ID, ActionID: res.Action.ID, Kind: EvidenceInjectionFailure, Time: start, Result: res})
	}
	s.flight(ctx, &res, err)
	if landed != nil {
		*landed = params
	}
	return res
}

func actionEventType(res fault.Result) string {
	if res.Success {
		return EventActionExecuted
	}
	return EventActionFailed
}

// selectorRand returns the generator for target selectors: the run's, seeded
// by the run's seed, or the service's own.
func (s *Service) selectorRand(run *Run) *rand.Rand {
	if run != nil {
		return run.lockedRand()
	}
	return s.shared
}

// record counts res in stats, metrics and history, and encodes the payload
// of its event when there is a store to append it to (under the same lock:
// the slab is behind mu); kind is what the injector knows of its type (a
// zero kind: the type is unknown).
func (s *Service) record(res *fault.Result, kind fault.Binding, wall time.Duration) (payload []byte) {
	typ := res.Action.Type
	if !kind.Known() {
		typ = invalidType // any string a client sends must not become a label
	}
	om := s.metrics.forOutcome(typ, kind, res.Success)
	om.actions.Inc()
	om.latency.observe(wall)
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := s.typeStats(typ, kind)
	s.stats.Total++
	ts.Total++
	if res.Success {
		s.stats.Succeeded++
		ts.Succeeded++
	} else {
		s.stats.Failed++
		ts.Failed++
	}
	s.stats.injectionWall += wall
	s.history.add(res)
	if s.store == nil {
		return nil
	}
	a := &res.Action
	return s.payloads.actionEvent(&ActionEvent{
		ActionID: a.ID, Type: a.Type, TargetID: a.TargetID, SourceID: a.SourceID,
		Success: res.Success, Error: res.Error, Duration: res.Duration,
	})
}

// typeStats returns the counters of typ, made on first use; kind indexes
// them for the injector's types (byKind), so that Execute need not hash the
// type. Called with s.mu held.
func (s *Service) typeStats(typ fault.Type, kind fault.Binding) *FaultTypeStats {
	known := kind.Known()
	if known {
		if ts := s.byKind[kind.Index()]; ts != nil {
			return ts
		}
	}
	ts := s.byType[typ]
	if ts == nil {
		ts = new(FaultTypeStats)
		s.byType[typ] = ts
	}
	if known {
		s.byKind[kind.Index()] = ts
	}
	return ts
}

// appendEvent appends one event to the arena stream with optimistic
// concurrency: append expecting the version last seen, and on a conflict
// retry with the version the store reports (or reads). So concurrent calls
// neither lose nor duplicate an event.
func (s *Service) appendEvent(ctx context.Context, typ string, at time.Time, payload any) {
	if s.store == nil {
		return
	}
	data, err := json.Marshal(payload)
	if err != nil {
		s.eventErr(err)
		return
	}
	s.appendEncoded(ctx, typ, at, data)
}

// appendEncoded is appendEvent with the payload encoded already. The store
// takes ownership of data.
func (s *Service) appendEncoded(ctx context.Context, typ string, at time.Time, data []byte) {
	// No metadata: the payload names the action (a map per event was the
	// largest part of a long run's retained events).
	e := events.Event{Stream: EventStream, Type: typ, Time: at, Data: data}
	if ctx.Done() != nil {
		ctx = context.WithoutCancel(ctx) // a cancelled run still records what it did
	}
	v := s.version.Load()
	for attempt := 0; ; attempt++ {
		nv, err := s.appendOne(ctx, e, v)
		if err == nil {
			s.version.Store(nv) // a racing append may store an older one: it costs a retry, never an event
			return
		}
		if !errors.Is(err, events.ErrConflict) || attempt >= maxAppendAttempts {
			s.eventErr(err)
			return
		}
		if c := (*events.ConflictError)(nil); errors.As(err, &c) && c.Actual != v {
			v = c.Actual
		} else if v, err = s.store.StreamVersion(ctx, EventStream); err != nil { // a store that says no more
			s.eventErr(err)
			return
		}
	}
}

// appendOne appends e to the arena stream expecting version v.
func (s *Service) appendOne(ctx context.Context, e events.Event, v uint64) (uint64, error) {
	if s.appender != nil {
		return s.appender.AppendEvent(ctx, EventStream, e, v)
	}
	evs := eventSlices.Get().(*[]events.Event)
	defer func() {
		clear(*evs) // drop the references before the slice is reused
		eventSlices.Put(evs)
	}()
	(*evs)[0] = e
	return s.store.Append(ctx, EventStream, *evs, v)
}

const maxAppendAttempts = 1000

// eventSlices holds one-event slices for appendOne: the store copies the
// event out, so the slice need not be allocated per call.
var eventSlices = sync.Pool{New: func() any { return &[]events.Event{{}} }}

func (s *Service) eventErr(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.EventErrors++
	s.stats.LastEventError = err.Error()
}

func (s *Service) bridgeErr(err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.BridgeErrors++
	s.stats.LastBridgeError = err.Error()
}

// flight is the flight bridge: a timeline event for every action, and a
// diagnostic for every failed one.
func (s *Service) flight(ctx context.Context, res *fault.Result, err error) {
	fr := s.opts.flight
	if fr == nil {
		return
	}
	a := &res.Action
	s.bridgeErr(fr.RecordEvent(ctx, FlightEvent{
		Time: res.StartedAt, Kind: "chaos.action", ActionID: a.ID, Type: a.Type, TargetID: a.TargetID,
		SourceID: a.SourceID, Success: res.Success, Error: res.Error, Duration: res.Duration,
	}))
	if !res.Success {
		spec, _ := s.injector.Fault(a.Type)
		s.bridgeErr(fr.RecordDiagnostic(ctx, diagnose(*res, err, spec)))
	}
}

// faultOutcome is called by runs with each fault's final outcome: metrics,
// stats, an event, and the evolution bridge for faults not healed well.
func (s *Service) faultOutcome(ctx context.Context, f FaultOutcome, limit time.Duration, now time.Time) {
	typ, label := EventFaultLost, 2 // faultOutcomeLabels
	s.mu.Lock()
	switch {
	case f.Recovered:
		s.stats.FaultsRecovered++
		s.stats.ttrSum += f.TTR.D()
		typ, label = EventFaultRecovered, 0
	case f.Undecided:
		s.stats.FaultsUndecided++
		typ, label = EventFaultUndecided, 1
	default:
		s.stats.FaultsUnrecovered++
	}
	s.mu.Unlock()
	s.metrics.forFault(label).Inc()
	if f.Recovered {
		s.metrics.ttr.Observe(f.TTR.D().Seconds())
	}
	if !f.Recovered && !f.Undecided {
		s.storeEvidence(ctx, Evidence{ID: "ev-unrecovered-" + f.Action.ID, ActionID: f.Action.ID, Kind: EvidenceUnrecovered, Time: now, Fault: &f})
	}
	s.appendFaultOutcome(ctx, typ, now, &f)
	if !f.Undecided { // not watched long enough: nothing to propose
		s.evolve(ctx, f, limit, now)
	}
}

// evolve is the evolution bridge. Emergencies get a context with a timeout,
// so a coordinator that honours its context cannot stall a run for longer.
func (s *Service) evolve(ctx context.Context, f FaultOutcome, limit time.Duration, now time.Time) {
	ev := s.opts.evolution
	if ev == nil {
		return
	}
	spec, _ := s.injector.Fault(f.Action.Type)
	p, ok := proposal(f, limit, now, spec)
	if !ok {
		return
	}
	s.mu.Lock()
	s.stats.Proposals++
	s.mu.Unlock()
	if p.Priority >= EmergencyPriority {
		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.emergencyTimeout)
		defer cancel()
		s.bridgeErr(faulterr.Safely(func() error { return ev.ApplyEmergency(ectx, p) }))
		return
	}
	s.bridgeErr(faulterr.Safely(func() error { return ev.Submit(ctx, p) }))
}

func (s *Service) runCompleted(score Score) {
	if score.Measured {
		s.metrics.score.Set(score.Total)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Runs++
	if score.Measured {
		total := score.Total
		s.stats.LastScore = &total
	}
}

// lockedRand wraps a generator so that concurrent callers share it safely.
func lockedRand(mu *sync.Mutex, r *rand.Rand) *rand.Rand {
	return rand.New(&lockedSource{mu: mu, r: r})
}

type lockedSource struct {
	mu *sync.Mutex
	r  *rand.Rand
}

func (l *lockedSource) Uint64() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Uint64()
}
