package shrink

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/scenario"
)

// SystemFactory makes a fresh system under test, as a service, for one run
// of a schedule whose seed is seed (seed it the way the failing run's
// system was seeded: a fake cluster takes it as its workload's seed). The
// service is used for one run and then dropped; the run rolls back its own
// faults however it ends.
type SystemFactory func(ctx context.Context, seed uint64) (*engine.Service, error)

// SystemHost hosts one run of a schedule whose seed is seed, for a system
// that must be built where it runs: a system in simulated time lives in a
// testing/synctest bubble of its own (arenatest.SimulateRun makes one per
// run, with a fresh sim.World built by the user's setup). It makes the
// fresh system there and calls play with it and a context of that place,
// which it ends when ctx ends, and returns what play returned. A host that
// cannot make the system returns an error without calling play.
type SystemHost func(ctx context.Context, seed uint64, play Play) (*scenario.Report, error)

// Play runs the schedule on svc: the shrinker's side of a SystemHost.
type Play func(ctx context.Context, svc *engine.Service) (*scenario.Report, error)

// Config says what to shrink, against what, how to judge a candidate
// and how long to search. Zero values mean the documented defaults.
type Config struct {
	// Scenario is the failing run, as a scenario: a scenario file, or a
	// survival run turned into one (FromSurvival). Its seed must be
	// set: it is part of the schedule.
	Scenario *scenario.Scenario
	// System makes a fresh system for every run; it or Host is required.
	System SystemFactory
	// Host, instead of System, hosts every run on a fresh system of its
	// making (see SystemHost).
	Host SystemHost
	// Fails is the failure predicate, asked of every run whose gate failed
	// (a run that passed never fails; a cancelled one is not judged). Nil
	// means SameFailure of the first failing run of Scenario: its gate
	// fails again, for the same reasons.
	Fails func(*scenario.Report) bool

	// Runs and Need: a candidate fails when at least Need of Runs runs of
	// it fail; runs stop as soon as the answer is known. The default is one
	// run (1 of 1) when the runs are virtual, where the same schedule gives
	// the same run, and DefaultNeed of DefaultRuns otherwise.
	// Need defaults to ⌈4/5 of Runs⌉ when only Runs is given. Set them for a
	// system that is not deterministic on a virtual clock (one that draws
	// randomness of its own). Runs is at most MaxRepeats.
	Runs, Need int
	// Replays is how many times the result is replayed to measure its
	// failure rate (default DefaultReplays). A result that fails less
	// often than Need of Runs is not reported: Run falls back to the
	// last accepted schedule that does. At most MaxRepeats.
	Replays int

	// Budget bounds the search in wall-clock time, read from the kernel's
	// clock even inside a synctest bubble, where time.Now is fake (default
	// DefaultBudget) and MaxRuns in runs (default DefaultMaxRuns); at either the search stops, cancelling the run
	// in flight, and the best schedule so far is the result. The replays
	// that measure the result's failure rate run after the search, within
	// the caller's context only.
	Budget  time.Duration
	MaxRuns int
	// Started is when Budget began (default: when Run is called). A caller
	// that replays the original before Run (CompleteSurvival replays a
	// survival run) sets it to when that replay began, and bounds the
	// replay by the same deadline, Started + Budget: the budget then covers
	// every run of the original, and one spent before the search begins
	// ends Run with ErrOutOfTime.
	Started time.Time

	// Progress, when set, is told after every run what the search has
	// done so far. It is called on Run's goroutine.
	Progress func(Progress)
}

// Run defaults.
const (
	DefaultRuns    = 5 // runs per candidate when the runs are not virtual
	DefaultNeed    = 4 // of which must fail
	DefaultReplays = 10
	DefaultBudget  = 5 * time.Minute
	DefaultMaxRuns = 10_000
	// MaxRepeats bounds Runs and Replays, the runs of one schedule: the
	// replays are not bounded by
	// the budget.
	MaxRepeats = 1000
)

// ErrNoFailure: the schedule given to Run does not fail when replayed
// (by the predicate, Need of Runs times), so there is nothing to shrink.
var ErrNoFailure = errors.New("the run does not fail when replayed")

// Progress is what a search has done so far.
type Progress struct {
	Runs       int           // runs made, replays included
	Candidates int           // schedules judged
	Faults     int           // faults of the smallest failing schedule so far
	Length     time.Duration // its planned length
	Pass       string        // the search's current pass (see Pass)
	Elapsed    time.Duration // wall clock since the budget started (Config.Started)
}

// Result is the smallest failing schedule Run found, as a
// scenario file, with what it took to find and how often it fails. Its
// JSON form is stable; durations are Go duration strings.
type Result struct {
	// Scenario is the result: an ordinary scenario (sequential steps, the
	// seed and the gate of the original) that scenario.Load and `arena run`
	// read once written with WriteYAML.
	Scenario *scenario.Scenario `json:"scenario"`
	Original Size               `json:"original"`
	Shrunk   Size               `json:"shrunk"`
	// Failure is what failing meant: Failure of the original's first
	// failing run with the default predicate; nil with a predicate of the
	// caller's.
	Failure []string `json:"failure,omitempty"`
	// Rate is the result's failure rate over Replays runs (the ones after
	// the search; the runs that judged it during the search are not in it).
	Rate FailRate `json:"rate"`
	// Runs and Need judged each candidate (see Config).
	JudgeRuns int  `json:"judge_runs"`
	JudgeNeed int  `json:"judge_need"`
	Virtual   bool `json:"virtual"` // the runs were on a virtual clock
	// Clock is the clock the runs played on (clock.KindVirtual,
	// KindSimulated, KindReal), and RunTime the time they took on it, all
	// of them: on a virtual or simulated clock it is not the wall time.
	Clock   clock.Kind     `json:"clock"`
	RunTime clock.Duration `json:"run_time"`
	// Runs counts every run made (baseline, candidates, replays);
	// Candidates the schedules judged.
	Runs       int `json:"runs"`
	Candidates int `json:"candidates"`
	// Stopped says why the search ended: done (no smaller candidate
	// failed), or a budget (runs, time), or cancelled.
	Stopped Stop `json:"stopped"`
	// WallTime is what the search and the replays took on the wall clock.
	WallTime clock.Duration `json:"wall_time"`
	Passes   []Pass         `json:"passes"` // the accepted reductions, in order
	// Warnings say what the caller should know about the result: outcomes
	// that varied on a virtual clock, a result that fell back to a larger
	// schedule because the smaller one failed too rarely.
	Warnings []string `json:"warnings,omitempty"`
	// Report is one failing run of the result (nil if none of its replays
	// failed).
	Report *scenario.Report `json:"-"`
}

// Size is the size of a schedule: its faults and planned length.
type Size struct {
	Faults int            `json:"faults"`
	Length clock.Duration `json:"length"`
}

// Stop says why a search ended.
type Stop string

// Search endings.
const (
	Done      Stop = "done"      // no smaller candidate fails
	OutOfRuns Stop = "runs"      // Config.MaxRuns reached
	OutOfTime Stop = "time"      // Budget reached
	Cancelled Stop = "cancelled" // the caller's context ended
)

// Pass is one accepted reduction: which pass made it and the
// schedule's size after it.
type Pass struct {
	Pass   string         `json:"pass"`
	Faults int            `json:"faults"`
	Length clock.Duration `json:"length"`
}

// Run searches for the smallest schedule that still fails the way
// cfg.Scenario fails, running every candidate on a fresh system from
// cfg.System (or cfg.Host). The search, in passes (window and cut once, the others
// repeated until none makes progress):
//
//   - window: when the failure has a time (a failed consistency check, an
//     unrecovered fault), the faults of growing windows before it, moved
//     to the start of the run;
//   - cut: the shortest prefix and suffix of the faults that still fail;
//   - drop: delta debugging (ddmin) over the list of faults;
//   - roles: a fault on the agent that held a role then (the leader)
//     retargeted at the role (type:leader), so that the faults that gave
//     it the role can go;
//   - move: each fault earlier (the gap before it shortened, the faults
//     after it moving with it), then to its successor's instant;
//   - shorten: each fault's duration, then the cooldown;
//   - simplify: each fault's other metadata to its default;
//   - resolve: selectors (random, type:worker) replaced by the agents they
//     hit.
//
// Faults keep their times when others are dropped. Durations shrink over
// round values (1, 2, 5 × 10ⁿ). A schedule cut from a longer one gets a
// cooldown of at least the recovery deadline, and the cooldown is never
// shortened below it: a run that ends sooner would call faults
// unrecovered, or catch the system mid-recovery, for want of time, a
// failure of the schedule's making. The warmup is kept.
//
// A candidate is judged by Need of Runs runs (see Config): one run
// in virtual time, where the same schedule gives the same run. When the
// search ends, the result is replayed Replays times and its rate reported
// ("fails 10/10"); a result that fails less often than Need of Runs gives
// way to the last accepted schedule that fails often enough, with a
// warning, so a schedule that fails 1 time in 10 is never the reported
// cause.
//
// The result is always an ordinary sequential scenario, whatever the
// original's mode (parallel steps are replaced by their start times in the
// first failing run); its config keeps the seed, warmup, observation
// settings and stop conditions, and its expect block is the original's.
//
// Run returns an error for a bad config (naming the field), a system
// that cannot be made, ErrNoFailure when the original does not fail, and
// ErrOutOfTime or ErrOutOfRuns when a budget is spent before the original
// has been judged.
// When ctx ends once the original has been judged, it returns the best
// result so far with ctx's error; the run in flight rolls back its faults,
// as every run does.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, fmt.Errorf("shrink: %w", err)
	}
	sh := newShrinker(cfg)
	return sh.run(ctx)
}

func (c Config) normalize() (Config, error) {
	switch {
	case c.Scenario == nil:
		return c, errors.New("scenario: missing")
	case c.Scenario.Config.Seed == 0:
		return c, errors.New("scenario: config.seed: missing (a schedule is replayed with its seed)")
	case c.System == nil && c.Host == nil:
		return c, errors.New("system: missing (a factory of fresh systems, or a host)")
	case c.System != nil && c.Host != nil:
		return c, errors.New("host: given with system (give one of them)")
	case c.Runs < 0:
		return c, fmt.Errorf("runs: negative count %d", c.Runs)
	case c.Need < 0:
		return c, fmt.Errorf("need: negative count %d", c.Need)
	case c.Need > 0 && c.Runs == 0:
		return c, fmt.Errorf("need: %d given without runs", c.Need)
	case c.Need > c.Runs:
		return c, fmt.Errorf("need: %d is more than runs %d", c.Need, c.Runs)
	case c.Runs > MaxRepeats:
		return c, fmt.Errorf("runs: %d is more than %d", c.Runs, MaxRepeats)
	case c.Replays < 0:
		return c, fmt.Errorf("replays: negative count %d", c.Replays)
	case c.Replays > MaxRepeats:
		return c, fmt.Errorf("replays: %d is more than %d", c.Replays, MaxRepeats)
	case c.Budget < 0:
		return c, fmt.Errorf("budget: negative duration %s", c.Budget)
	case c.MaxRuns < 0:
		return c, fmt.Errorf("max_runs: negative count %d", c.MaxRuns)
	}
	if c.Runs > 0 && c.Need == 0 {
		c.Need = (4*c.Runs + 4) / 5
	}
	if c.Replays == 0 {
		c.Replays = DefaultReplays
	}
	if c.Budget == 0 {
		c.Budget = DefaultBudget
	}
	if c.MaxRuns == 0 {
		c.MaxRuns = DefaultMaxRuns
	}
	return c, nil
}
