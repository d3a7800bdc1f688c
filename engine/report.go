package engine

import (
	"github.com/ares-arena/arena/internal/wasmguest"
	"math"
	"slices"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// Report is the observed and scored outcome of one run. In virtual time
// every field is a function of the run's schedule, seed and system, except
// WallTime and the generated action IDs (which number the service's
// actions): a virtual run replayed with the same seed on a fresh service
// gives the same report, WallTime aside. In simulated and real time the
// schedule is the seed's, and what the system did may vary (Clock).
// WallTime is always read from the kernel's clock, which a synctest
// bubble does not fake.
//
// Faults, Checks and InjectionErrors list at most ObserveOptions.ListCap
// entries each (the first ones), Timeline at most TimelineCap; the counts and
// the score always cover the whole run.
type Report struct {
	Seed    uint64 `json:"seed"`
	Virtual bool   `json:"virtual"`
	// Clock names the clock the run played on: virtual, simulated
	// (synctest) or real. Only a virtual run is a function of its seed.
	Clock clock.Kind `json:"clock"`
	// Build is, on the deterministic clock, what the replay depends on
	// besides its command line and seed: the test binary (its sha256,
	// which pins the toolchain and module versions), the Go version and
	// the modules. A replay under another build may differ.
	Build               *wasmguest.Build `json:"build,omitempty"`
	ProbeInterval       clock.Duration   `json:"probe_interval"` // the resolution of every time measured from samples
	Start               time.Time        `json:"start"`
	End                 time.Time        `json:"end"`
	Score               Score            `json:"score"`
	Landed              int              `json:"landed"` // faults that landed
	Recovered           int              `json:"recovered"`
	Unrecovered         int              `json:"unrecovered"`
	Undecided           int              `json:"undecided,omitempty"` // the run ended before their verdict: not scored (FaultOutcome.Undecided)
	MTTR                clock.Duration   `json:"mttr"`                // mean TTR of recovered faults
	P50TTR              clock.Duration   `json:"p50_ttr"`
	P90TTR              clock.Duration   `json:"p90_ttr"`
	P95TTR              clock.Duration   `json:"p95_ttr"` // nearest-rank percentiles of recovered faults' TTRs
	P99TTR              clock.Duration   `json:"p99_ttr"`
	MaxTTR              clock.Duration   `json:"max_ttr"`
	Downtime            clock.Duration   `json:"downtime"` // unhealthy samples × probe interval
	Samples             int              `json:"samples"`
	HealthySamples      int              `json:"healthy_samples"`
	ChecksRun           int              `json:"checks_run"`
	ChecksPassed        int              `json:"checks_passed"`
	ChecksNotApplicable int              `json:"checks_not_applicable"` // could not look: not measured, not in ChecksRun
	ChecksUndecided     int              `json:"checks_undecided"`      // ran out of their budget: not measured, not in ChecksRun
	InjectionErrorCount int              `json:"injection_error_count"`
	Faults              []FaultOutcome   `json:"faults"`
	InjectionErrors     []fault.Result   `json:"injection_errors"` // faults that did not land: not scored
	Checks              []CheckResult    `json:"checks"`
	Timeline            []Transition     `json:"timeline"`
	TimelineDropped     int              `json:"timeline_dropped,omitempty"`
	// Overtime is how long the run went on observing past its schedule so
	// that the faults it landed last could be decided (overtime.go).
	Overtime clock.Duration `json:"overtime,omitempty"`
	// Aborted says why a stop condition (AbortWhen) or an unhealthy start
	// ended the run early; empty when none did.
	Aborted string `json:"aborted,omitempty"`
	// OutsideFaults: faults arena landed outside this run (Execute, an HTTP
	// action) that were still in place when it started. They are not the
	// run's, so they are not in Faults nor rolled back by it, but the
	// system under test carried them: a score is read knowing that.
	OutsideFaults []ActiveFault `json:"outside_faults,omitempty"`
	// Rollback: what became, when the run ended, of its faults still in
	// place: lifted by arena, a lift that failed, or left to the system's
	// healing (faults arena cannot lift, not healed by the end).
	Rollback []FaultRollback `json:"rollback"`
	WallTime clock.Duration  `json:"wall_time"`
}

// Report builds the run's final report: call it after Finish. Its score
// counts planned faults never tried (unlanded); Score is the live one.
func (o *observer) Report(seed uint64) *Report {
	o.mu.Lock()
	defer o.mu.Unlock()
	t := o.tally
	r := &Report{
		Seed:                seed,
		Virtual:             o.ex.Virtual(),
		Clock:               o.clock,
		Build:               buildOf(o.clock),
		ProbeInterval:       clock.Duration(o.opts.ProbeInterval),
		Start:               o.start,
		End:                 o.ex.Now(),
		Landed:              t.landed,
		Faults:              make([]FaultOutcome, 0, len(o.faults)),
		InjectionErrors:     append([]fault.Result{}, o.injectionErrs...),
		InjectionErrorCount: t.injectionErrs,
		Samples:             o.samples,
		HealthySamples:      o.healthySamples,
		ChecksRun:           t.checks,
		ChecksPassed:        t.passed,
		ChecksNotApplicable: t.notApplicable,
		ChecksUndecided:     t.undecided,
		Checks:              append([]CheckResult{}, o.checkResults...),
		Timeline:            append([]Transition{}, o.timeline...),
		TimelineDropped:     o.dropped,
		Downtime:            clock.Duration(time.Duration(o.samples-o.healthySamples) * o.opts.ProbeInterval),
		Recovered:           t.recovered,
		Unrecovered:         t.decided - t.recovered,
		Undecided:           t.faultsUndecided,
	}
	for _, f := range o.faults {
		r.Faults = append(r.Faults, f.out)
	}
	r.Score = o.scoreAt(true)
	if t.recovered > 0 {
		r.MTTR = clock.Duration(t.ttrSum / time.Duration(t.recovered))
		q := quantiles(t.ttrs, t.recovered, 0.50, 0.90, 0.95, 0.99, 1)
		r.P50TTR, r.P90TTR, r.P95TTR, r.P99TTR, r.MaxTTR = q[0], q[1], q[2], q[3], q[4]
	}
	return r
}

// Score returns the live score of the run so far, without building a report.
func (o *observer) Score() Score {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.score()
}

// score is the live score. Without a probe no fault is followed, so none is
// decided and recovery is unmeasured.
func (o *observer) score() Score { return o.scoreAt(false) }

// scoreAt scores the run so far; final: the run is over (see unlanded).
func (o *observer) scoreAt(final bool) Score {
	t := o.tally
	return o.unlanded(scoreFrom(o.samples, o.healthySamples, t.decided, t.recoverySum, t.checks, t.passed, o.opts.Scoring), final)
}

// quantiles returns nearest-rank quantiles (rank ⌈q·n⌉) of a histogram of
// n values.
func quantiles(hist map[time.Duration]int, n int, qs ...float64) []clock.Duration {
	keys := make([]time.Duration, 0, len(hist))
	for k := range hist {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]clock.Duration, len(qs))
	for i, q := range qs {
		rank := int(math.Ceil(q*float64(n) - 1e-9))
		rank = max(rank, 1)
		seen := 0
		for _, k := range keys {
			seen += hist[k]
			if seen >= rank {
				out[i] = clock.Duration(k)
				break
			}
		}
	}
	return out
}

// buildOf is the build a run on clock k depends on: the deterministic
// clock's, nil on the others.
func buildOf(k clock.Kind) *wasmguest.Build {
	if k != clock.KindDeterministic {
		return nil
	}
	return wasmguest.Current()
}
