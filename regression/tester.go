package regression

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/internal/stats"
)

// Mode is how a Tester decides how many runs to make.
type Mode string

// The modes.
const (
	// ModeFixed makes Runs runs per arm, then tests once with Welch's t-test.
	ModeFixed Mode = "fixed"
	// ModeSequential looks after every run (or every Batch runs) with an
	// anytime-valid t-test and stops as soon as the answer is significant,
	// or at MaxRuns with VerdictInconclusive. Its evidence for "better" is the
	// likelihood ratio of the pooled t statistic (the noncentral over the
	// central t density) of a prior on the effect with 95% of its weight
	// at +MDE and 5% at +6·MDE, against no effect; for "worse" the same at
	// −MDE and −6·MDE. It claims a direction when that ratio reaches
	// 1/Alpha (2/Alpha two-sided). The ratio is a nonnegative martingale
	// under no effect, so looking after every run keeps each false claim's
	// probability at most Alpha. It never stops for lack of evidence: two
	// arms that score one and the same constant run to the cap. See
	// docs/sequential-test.md.
	ModeSequential Mode = "sequential"
)

// maxMDE bounds Config.MDE, so that the sequential test's gross
// effect (6·MDE) and its noncentrality stay far from overflow.
const maxMDE = 100

// Defaults of Config.
const (
	DefaultAlpha = 0.05
	DefaultMDE   = 0.5
	DefaultPower = 0.8 // of the fixed design, for the default Runs
	// DefaultMaxRunsFactor times the runs a fixed two-sided test needs for
	// 90% power at the MDE is the default cap of a sequential test: 129 runs
	// per arm at the default MDE of 0.5.
	DefaultMaxRunsFactor = 1.5
)

// Config configures one A/B test. The zero value of each field
// means its default. Scores are "higher is better".
type Config struct {
	// Baseline and Candidate are the two strategies. The tester does not
	// look inside them: each run hands one to the Scorer in Trial.Strategy.
	Baseline  any `json:"-"`
	Candidate any `json:"-"`

	Mode Mode `json:"mode"` // default ModeFixed

	// Runs is the number of runs per arm in ModeFixed. Default: the sample
	// size that gives the fixed test 80% power at the MDE (51 at the
	// default one-sided 0.05 level and MDE 0.5; 64 two-sided).
	Runs int `json:"runs,omitempty"`
	// MaxRuns caps the runs per arm in ModeSequential. Default: 1.5 × the
	// two-sided fixed sample size for 90% power at the MDE (129 at MDE 0.5).
	// A higher cap buys power and costs expected runs only where the test
	// would not have stopped before it: at MDE 0.5 and a true effect of
	// 0.5, a cap of 130 (the calibration's, one above the default) gives
	// 95% power in 51 runs per arm on average, where a fixed test needs 86
	// (docs/sequential-test.md tabulates other caps). With no effect the test nearly always runs to the cap.
	MaxRuns int `json:"max_runs,omitempty"`
	// MinRuns is the number of runs per arm before the first look in
	// ModeSequential (default 2, the least a t statistic needs). Early looks
	// cost no validity: the evidence cannot reach its threshold on a
	// handful of runs.
	MinRuns int `json:"min_runs,omitempty"`
	// Batch: ModeSequential looks when the runs per arm are a multiple of
	// Batch (default 1: after every run), and at MaxRuns.
	Batch int `json:"batch,omitempty"`

	// Alpha is the significance level (default 0.05).
	Alpha float64 `json:"alpha,omitempty"`
	// TwoSided asks "do the arms differ?" instead of the default one-sided
	// "is the candidate better?".
	TwoSided bool `json:"two_sided,omitempty"`
	// MDE is the minimum detectable effect, in standard deviations (Cohen's
	// d; default 0.5, at most 100). It sets the default Runs and MaxRuns,
	// and it is the effect the sequential test plans for: most of its
	// prior's weight is at ±MDE, which makes it stop early when the true
	// effect is near MDE; a smaller true effect is found late or not at
	// all (at MDE 0.5 and a true 0.2: 29% power in 109 runs per arm on
	// average, where a fixed test needs 61 for that power;
	// docs/sequential-test.md).
	MDE float64 `json:"mde,omitempty"`
	// G, when set (> 0), replaces the sequential test's evidence with the
	// Bayes factor of a N(0, G) prior on the standardised effect, arena's
	// rule before issue 27: BF ≥ 1/(2·Alpha) in the direction of t claims
	// it (BF ≥ 1/Alpha two-sided). It plans for no one effect, and needs
	// more runs at the effects the calibration measures (with G 0.25 at a
	// true effect of 0.5: 58 runs per arm on average for 93% power, against
	// 51 for 95%). Default 0: the likelihood ratio of the MDE's prior.
	G float64 `json:"g,omitempty"`

	// Parallelism bounds the runs scored at once (default GOMAXPROCS).
	// Results are stored by run index, never by completion order, so the
	// outcome does not depend on it.
	Parallelism int `json:"parallelism,omitempty"`
	// Seed seeds the runs' seeds (Trial.Seed); 0 draws one, reported in
	// the result.
	Seed uint64 `json:"seed,omitempty"`
}

// withDefaults validates c and fills its zero fields.
func (c Config) withDefaults() (Config, error) {
	switch c.Mode {
	case "":
		c.Mode = ModeFixed
	case ModeFixed, ModeSequential:
	default:
		return c, fmt.Errorf("mode: unknown mode %q (want %q or %q)", c.Mode, ModeFixed, ModeSequential)
	}
	if c.Alpha == 0 {
		c.Alpha = DefaultAlpha
	}
	if !(c.Alpha > 0 && c.Alpha < 0.5) {
		return c, fmt.Errorf("alpha: want a level in (0, 0.5), got %v", c.Alpha)
	}
	if c.MDE == 0 {
		c.MDE = DefaultMDE
	}
	if !(c.MDE > 0 && c.MDE <= maxMDE) {
		return c, fmt.Errorf("mde: want an effect size in (0, %v] standard deviations, got %v", maxMDE, c.MDE)
	}
	if c.G != 0 && (!(c.G > 0) || math.IsInf(c.G, 0)) {
		return c, fmt.Errorf("g: want a finite positive prior variance, got %v", c.G)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"runs", c.Runs}, {"max_runs", c.MaxRuns}, {"min_runs", c.MinRuns}, {"batch", c.Batch}, {"parallelism", c.Parallelism}} {
		if f.v < 0 {
			return c, fmt.Errorf("%s: negative count %d", f.name, f.v)
		}
	}
	var err error
	if c.Runs == 0 && c.Mode == ModeFixed {
		if c.Runs, err = stats.SampleSize(c.MDE, c.Alpha, DefaultPower, c.TwoSided); err != nil {
			return c, fmt.Errorf("runs: no default: %w", err)
		}
	}
	if c.MaxRuns == 0 && c.Mode == ModeSequential {
		n, err := stats.SampleSize(c.MDE, c.Alpha, 0.9, true)
		if err != nil {
			return c, fmt.Errorf("max_runs: no default: %w", err)
		}
		c.MaxRuns = int(math.Ceil(DefaultMaxRunsFactor * float64(n)))
	}
	if c.MinRuns == 0 {
		c.MinRuns = 2
	}
	if c.Batch == 0 {
		c.Batch = 1
	}
	if c.Parallelism == 0 {
		c.Parallelism = runtime.GOMAXPROCS(0)
	}
	switch {
	case c.Mode == ModeFixed && c.Runs < 2:
		return c, fmt.Errorf("runs: need at least 2 runs per arm, got %d", c.Runs)
	case c.Mode == ModeSequential && c.MaxRuns < 2:
		return c, fmt.Errorf("max_runs: need at least 2 runs per arm, got %d", c.MaxRuns)
	case c.MinRuns < 2:
		return c, fmt.Errorf("min_runs: need at least 2 runs per arm, got %d", c.MinRuns)
	case c.Mode == ModeSequential && c.MinRuns > c.MaxRuns:
		return c, fmt.Errorf("min_runs: %d is above max_runs %d", c.MinRuns, c.MaxRuns)
	}
	return c, nil
}

// pairs is the most runs per arm the test can make.
func (c Config) pairs() int {
	if c.Mode == ModeSequential {
		return c.MaxRuns
	}
	return c.Runs
}

// Tester runs A/B tests of two strategies: it scores runs of each
// with its Scorer and tests whether the candidate scores better than the
// baseline. See Config for the two modes, Result for
// the answer.
type Tester struct {
	svc    *engine.Service
	scorer Scorer
}

// NewTester returns a tester that scores runs with scorer. svc is
// handed to the scorer in Trial.Service, and records each finished test as
// an arena.regression.completed event; it may be nil for scorers that build
// their own systems (regression.ExperimentScorer does). A nil scorer is a
// programmer error and panics.
//
// While a test runs, it holds svc as a run would: another run, or an action
// outside a run (Execute, the HTTP action routes), gets a *RunActiveError
// naming the test, so nothing lands between two trials and leaks into the
// next one's score. Its trials' runs are admitted: those started with the
// context a ContextScorer is given (see Trial.Service).
func NewTester(svc *engine.Service, scorer Scorer) *Tester {
	if scorer == nil {
		panic("arena: regression.NewTester: nil scorer")
	}
	return &Tester{svc: svc, scorer: scorer}
}

// EventCompleted is the event type of a finished regression test.
const EventCompleted = "arena.regression.completed"

// Error is the error of a test that ended before its answer: the
// context was cancelled or a run could not be scored. Nothing is made up
// for the runs that did not complete; Completed says how many did.
type Error struct {
	Completed int    // runs scored successfully, both arms together
	Planned   int    // runs the test would have made at most, both arms
	Trial     *Trial // the run that failed; nil when cancelled
	Err       error
}

func (e *Error) Error() string {
	what := "cancelled"
	if e.Trial != nil {
		what = "scorer failed"
	}
	msg := fmt.Sprintf("regression: %s after %d of %d runs", what, e.Completed, e.Planned)
	if e.Trial != nil {
		msg += fmt.Sprintf(": %s run %d (seed %d)", e.Trial.Arm, e.Trial.Index, e.Trial.Seed)
	}
	return msg + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Run runs the test. Runs are scored in parallel, at most
// cfg.Parallelism at once, in index order (baseline 0, candidate 0,
// baseline 1, …), and each score is stored at its run's index. A sequential
// test looks only at the complete pairs 0…n−1, so when it looks and what it
// sees never depend on which run happened to finish first; runs still in
// flight when it stops are cancelled and not counted.
//
// It fails with a *RunActiveError, before any run, when a run or another
// test holds the tester's service. A cancelled context ends the test with a
// *Error and no result. So does a run that cannot be scored (an
// error, a panic, or a score that is NaN or infinite), unless the complete
// pairs before it already decide: runs with lower indices are still
// collected after a failure (later ones are cancelled), so the outcome is
// the one a sequential order would give, whatever the Parallelism.
func (rt *Tester) Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("regression: %w", err)
	}
	if cfg.Seed == 0 {
		cfg.Seed = engine.DrawSeed()
	}
	wall := time.Now()
	runCtx := ctx
	var lease *engine.Lease
	if rt.svc != nil {
		var err error
		if lease, err = rt.svc.Lease(); err != nil {
			return nil, fmt.Errorf("regression: %w", err)
		}
		defer lease.Release()
		runCtx = lease.Context(ctx)
	}
	c := newCollector(cfg)
	if err := rt.collect(runCtx, cfg, c); err != nil {
		return nil, err
	}
	res := c.result()
	res.WallTime = clock.Duration(time.Since(wall))
	if lease != nil {
		lease.Record(ctx, EventCompleted, regressionEvent{
			Verdict: res.Verdict, Mode: res.Mode, P: res.P, Runs: [2]int{res.Baseline.Runs, res.Candidate.Runs},
			Delta: res.Delta, Seed: res.Seed,
		})
	}
	return res, nil
}

// regressionEvent is the payload of arena.regression.completed.
type regressionEvent struct {
	Verdict Verdict `json:"verdict"`
	Mode    Mode    `json:"mode"`
	P       float64 `json:"p"`
	Runs    [2]int  `json:"runs"` // baseline, candidate
	Delta   float64 `json:"delta"`
	Seed    uint64  `json:"seed"`
}

// scored is one run's outcome; job k is run k/2 of the baseline (k even)
// or the candidate (k odd).
type scored struct {
	k     int
	trial Trial
	v     float64
	err   error
}

// collect scores runs with bounded parallelism and feeds them to c until c
// has its answer, every run is done, or something fails.
func (rt *Tester) collect(ctx context.Context, cfg Config, c *collector) error {
	planned := 2 * cfg.pairs()
	if err := ctx.Err(); err != nil {
		return &Error{Planned: planned, Err: err}
	}
	runCtx, cancel := context.WithCancel(ctx) // ended when the answer is in
	defer cancel()
	results := make(chan scored)
	var next atomic.Int64
	// After a failure at run k, runs after k are cancelled and not started
	// (limit), but runs before it are still collected: their pairs may
	// already decide, as they would have in a sequential order.
	var limit atomic.Int64
	limit.Store(int64(planned))
	var jobsMu sync.Mutex
	jobs := map[int]context.CancelFunc{} // runs in flight
	var wg sync.WaitGroup
	for range min(cfg.Parallelism, planned) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				k := int(next.Add(1) - 1)
				if int64(k) >= limit.Load() {
					return
				}
				jobCtx, jobCancel := context.WithCancel(runCtx)
				jobsMu.Lock()
				jobs[k] = jobCancel
				jobsMu.Unlock()
				if int64(k) >= limit.Load() { // a failure came in between
					jobCancel()
				}
				tr := rt.trial(cfg, k)
				v, err := rt.scoreOne(jobCtx, tr)
				jobsMu.Lock()
				delete(jobs, k)
				jobsMu.Unlock()
				jobCancel()
				select {
				case results <- scored{k: k, trial: tr, v: v, err: err}:
				case <-runCtx.Done():
					return
				}
				if err != nil {
					return // start nothing after a failure
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	var failed *scored // the failure with the lowest index
	completed := 0
	for o := range results { // until every worker is gone: nothing outlives Run
		switch {
		case c.done:
			continue // draining after the answer
		case failed != nil && o.k > failed.k:
			continue // cancelled, or not needed: an earlier run failed
		case o.err != nil:
			if ctx.Err() != nil {
				continue // the caller cancelled: reported below
			}
			failed = &o
			limit.Store(int64(o.k))
			jobsMu.Lock()
			for j, jobCancel := range jobs {
				if j > o.k {
					jobCancel()
				}
			}
			jobsMu.Unlock()
			continue
		}
		completed++
		if c.add(o.k, o.v) {
			cancel() // the answer is in: stop the runs in flight
		}
	}
	switch {
	case c.done:
		return nil
	case failed != nil:
		tr := failed.trial
		return &Error{Completed: completed, Planned: planned, Trial: &tr, Err: failed.err}
	case ctx.Err() != nil:
		return &Error{Completed: completed, Planned: planned, Err: ctx.Err()}
	}
	return &Error{Completed: completed, Planned: planned, Err: errors.New("runs ended without an answer")}
}

func (rt *Tester) trial(cfg Config, k int) Trial {
	tr := Trial{Arm: ArmBaseline, Strategy: cfg.Baseline, Index: k / 2, Seed: trialSeed(cfg.Seed, k/2), Service: rt.svc}
	if k%2 == 1 {
		tr.Arm, tr.Strategy = ArmCandidate, cfg.Candidate
	}
	return tr
}

// scoreOne scores one run, turning panics and non-finite scores into errors.
func (rt *Tester) scoreOne(ctx context.Context, tr Trial) (v float64, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = 0, fmt.Errorf("scorer panicked: %v", p)
		}
	}()
	v, err = scoreWith(ctx, rt.scorer, tr)
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		err = fmt.Errorf("score %v is not a finite number", v)
	}
	return v, err
}

// trialSeed derives the seed of run i from the test's seed (SplitMix64), so
// that both arms of a pair share it and pairs differ. It is non-zero (0
// would ask a run for a random seed) and below 2⁶³.
func trialSeed(seed uint64, i int) uint64 {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z = (z ^ (z >> 31)) >> 1
	if z == 0 {
		z = 1
	}
	return z
}

// collector stores scores by index and decides when the test has its
// answer: in fixed mode when every run is in; in sequential mode at the
// first look that rejects, or at the cap.
type collector struct {
	cfg    Config
	scores [2][]float64 // baseline, candidate
	have   [2][]bool
	n      int // complete pairs 0…n−1
	seq    *seqTest
	done   bool
}

func newCollector(cfg Config) *collector {
	p := cfg.pairs()
	c := &collector{cfg: cfg}
	for a := range 2 {
		c.scores[a] = make([]float64, p)
		c.have[a] = make([]bool, p)
	}
	if cfg.Mode == ModeSequential {
		c.seq = newSeqTest(cfg)
	}
	return c
}

// add stores the score of job k and reports whether the answer is in.
func (c *collector) add(k int, v float64) bool {
	arm, i := k%2, k/2
	c.scores[arm][i], c.have[arm][i] = v, true
	for c.n < len(c.have[0]) && c.have[0][c.n] && c.have[1][c.n] {
		i := c.n
		c.n++
		if c.seq != nil && c.seq.add(c.scores[0][i], c.scores[1][i]) {
			c.done = true
			return true
		}
	}
	c.done = c.n == len(c.have[0])
	return c.done
}

func (c *collector) result() *Result {
	base, cand := c.scores[0][:c.n], c.scores[1][:c.n]
	if c.seq != nil {
		return c.seq.result(base, cand)
	}
	return fixedResult(c.cfg, base, cand)
}
