package arena

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// SystemFactory makes a fresh system under test, as a service, for one run
// of a schedule whose seed is seed (seed it the way the failing run's
// system was seeded: a fake cluster takes it as its workload's seed). The
// service is used for one run and then dropped; the run rolls back its own
// faults however it ends.
type SystemFactory func(ctx context.Context, seed uint64) (*Service, error)

// ShrinkConfig says what to shrink, against what, how to judge a candidate
// and how long to search. Zero values mean the documented defaults.
type ShrinkConfig struct {
	// Scenario is the failing run, as a scenario: a scenario file, or a
	// survival run turned into one (ScenarioFromSurvival). Its seed must be
	// set: it is part of the schedule.
	Scenario *Scenario
	// System makes a fresh system for every run; required.
	System SystemFactory
	// Fails is the failure predicate, asked of every run whose gate failed
	// (a run that passed never fails; a cancelled one is not judged). Nil
	// means SameFailure of the first failing run of Scenario: its gate
	// fails again, for the same reasons.
	Fails func(*ScenarioReport) bool

	// Runs and Need: a candidate fails when at least Need of Runs runs of
	// it fail; runs stop as soon as the answer is known. The default is one
	// run (1 of 1) when the runs are virtual, where the same schedule gives
	// the same run, and DefaultShrinkNeed of DefaultShrinkRuns otherwise.
	// Need defaults to ⌈4/5 of Runs⌉ when only Runs is given. Set them for a
	// system that is not deterministic on a virtual clock (one that draws
	// randomness of its own). Runs is at most MaxShrinkRuns.
	Runs, Need int
	// Replays is how many times the result is replayed to measure its
	// failure rate (default DefaultShrinkReplays). A result that fails less
	// often than Need of Runs is not reported: Shrink falls back to the
	// last accepted schedule that does. At most MaxShrinkRuns.
	Replays int

	// Budget bounds the search in wall-clock time (default
	// DefaultShrinkBudget) and MaxRuns in runs (default
	// DefaultShrinkMaxRuns); at either the search stops, cancelling the run
	// in flight, and the best schedule so far is the result. The replays
	// that measure the result's failure rate run after the search, within
	// the caller's context only.
	Budget  time.Duration
	MaxRuns int

	// Progress, when set, is told after every run what the search has
	// done so far. It is called on Shrink's goroutine.
	Progress func(ShrinkProgress)
}

// Shrink defaults.
const (
	DefaultShrinkRuns    = 5 // runs per candidate when the runs are not virtual
	DefaultShrinkNeed    = 4 // of which must fail
	DefaultShrinkReplays = 10
	DefaultShrinkBudget  = 5 * time.Minute
	DefaultShrinkMaxRuns = 10_000
	// MaxShrinkRuns bounds Runs and Replays: the replays are not bounded by
	// the budget.
	MaxShrinkRuns = 1000
)

// ErrNoFailure: the schedule given to Shrink does not fail when replayed
// (by the predicate, Need of Runs times), so there is nothing to shrink.
var ErrNoFailure = errors.New("the run does not fail when replayed")

// ShrinkProgress is what a search has done so far.
type ShrinkProgress struct {
	Runs       int           // runs made, replays included
	Candidates int           // schedules judged
	Faults     int           // faults of the smallest failing schedule so far
	Length     time.Duration // its planned length
	Pass       string        // the search's current pass (see ShrinkPass)
	Elapsed    time.Duration // wall clock since Shrink started
}

// ShrinkResult is the smallest failing schedule Shrink found, as a
// scenario file, with what it took to find and how often it fails. Its
// JSON form is stable; durations are Go duration strings.
type ShrinkResult struct {
	// Scenario is the result: an ordinary scenario (sequential steps, the
	// seed and the gate of the original) that LoadScenario and `arena run`
	// read once written with WriteYAML.
	Scenario *Scenario  `json:"scenario"`
	Original ShrinkSize `json:"original"`
	Shrunk   ShrinkSize `json:"shrunk"`
	// Failure is what failing meant: Failure of the original's first
	// failing run with the default predicate; nil with a predicate of the
	// caller's.
	Failure []string `json:"failure,omitempty"`
	// Rate is the result's failure rate over Replays runs (the ones after
	// the search; the runs that judged it during the search are not in it).
	Rate FailRate `json:"rate"`
	// Runs and Need judged each candidate (see ShrinkConfig).
	JudgeRuns int  `json:"judge_runs"`
	JudgeNeed int  `json:"judge_need"`
	Virtual   bool `json:"virtual"` // the runs were on a virtual clock
	// Runs counts every run made (baseline, candidates, replays);
	// Candidates the schedules judged.
	Runs       int `json:"runs"`
	Candidates int `json:"candidates"`
	// Stopped says why the search ended: done (no smaller candidate
	// failed), or a budget (runs, time), or cancelled.
	Stopped  ShrinkStop   `json:"stopped"`
	WallTime Duration     `json:"wall_time"`
	Passes   []ShrinkPass `json:"passes"` // the accepted reductions, in order
	// Warnings say what the caller should know about the result: outcomes
	// that varied on a virtual clock, a result that fell back to a larger
	// schedule because the smaller one failed too rarely.
	Warnings []string `json:"warnings,omitempty"`
	// Report is one failing run of the result (nil if none of its replays
	// failed).
	Report *ScenarioReport `json:"-"`
}

// ShrinkSize is the size of a schedule: its faults and planned length.
type ShrinkSize struct {
	Faults int      `json:"faults"`
	Length Duration `json:"length"`
}

// ShrinkStop says why a search ended.
type ShrinkStop string

// Search endings.
const (
	ShrinkDone      ShrinkStop = "done"      // no smaller candidate fails
	ShrinkRuns      ShrinkStop = "runs"      // MaxRuns reached
	ShrinkTime      ShrinkStop = "time"      // Budget reached
	ShrinkCancelled ShrinkStop = "cancelled" // the caller's context ended
)

// ShrinkPass is one accepted reduction: which pass made it and the
// schedule's size after it.
type ShrinkPass struct {
	Pass   string   `json:"pass"`
	Faults int      `json:"faults"`
	Length Duration `json:"length"`
}

// Shrink searches for the smallest schedule that still fails the way
// cfg.Scenario fails, running every candidate on a fresh system from
// cfg.System. The search, in passes (window and cut once, the others
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
// A candidate is judged by Need of Runs runs (see ShrinkConfig): one run
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
// Shrink returns an error for a bad config (naming the field), a system
// that cannot be made, and ErrNoFailure when the original does not fail.
// When ctx ends once the original has been judged, it returns the best
// result so far with ctx's error; the run in flight rolls back its faults,
// as every run does.
func Shrink(ctx context.Context, cfg ShrinkConfig) (*ShrinkResult, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, fmt.Errorf("shrink: %w", err)
	}
	sh := newShrinker(cfg)
	return sh.run(ctx)
}

func (c ShrinkConfig) normalize() (ShrinkConfig, error) {
	switch {
	case c.Scenario == nil:
		return c, errors.New("scenario: missing")
	case c.Scenario.Config.Seed == 0:
		return c, errors.New("scenario: config.seed: missing (a schedule is replayed with its seed)")
	case c.System == nil:
		return c, errors.New("system: missing (a factory of fresh systems)")
	case c.Runs < 0:
		return c, fmt.Errorf("runs: negative count %d", c.Runs)
	case c.Need < 0:
		return c, fmt.Errorf("need: negative count %d", c.Need)
	case c.Need > 0 && c.Runs == 0:
		return c, fmt.Errorf("need: %d given without runs", c.Need)
	case c.Need > c.Runs:
		return c, fmt.Errorf("need: %d is more than runs %d", c.Need, c.Runs)
	case c.Runs > MaxShrinkRuns:
		return c, fmt.Errorf("runs: %d is more than %d", c.Runs, MaxShrinkRuns)
	case c.Replays < 0:
		return c, fmt.Errorf("replays: negative count %d", c.Replays)
	case c.Replays > MaxShrinkRuns:
		return c, fmt.Errorf("replays: %d is more than %d", c.Replays, MaxShrinkRuns)
	case c.Budget < 0:
		return c, fmt.Errorf("budget: negative duration %s", c.Budget)
	case c.MaxRuns < 0:
		return c, fmt.Errorf("max_runs: negative count %d", c.MaxRuns)
	}
	if c.Runs > 0 && c.Need == 0 {
		c.Need = (4*c.Runs + 4) / 5
	}
	if c.Replays == 0 {
		c.Replays = DefaultShrinkReplays
	}
	if c.Budget == 0 {
		c.Budget = DefaultShrinkBudget
	}
	if c.MaxRuns == 0 {
		c.MaxRuns = DefaultShrinkMaxRuns
	}
	return c, nil
}
