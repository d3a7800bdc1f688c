package arenatest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/shrink"
)

// ShrunkDir is where WithShrinkOnFailure writes the schedules it shrinks,
// relative to the package's directory (where go test runs its tests).
const ShrunkDir = "testdata/arena-shrunk"

// ReplayFlag and ReplayEnv name the two ways to make Run and Survive play
// a scenario file (a shrunk schedule) instead of their own scenario or
// survival run, against the system their options build:
//
//	go test -run '^TestDay$' -arena.replay=testdata/arena-shrunk/TestDay.yaml
//	ARENA_REPLAY=testdata/arena-shrunk/TestDay.yaml go test -run '^TestDay$'
const (
	ReplayFlag = "arena.replay"
	ReplayEnv  = "ARENA_REPLAY"
)

// replayFlag is -arena.replay, registered once, like -arena.seed.
var replayFlag = func() *flag.Flag {
	if f := flag.Lookup(ReplayFlag); f != nil {
		return f
	}
	flag.String(ReplayFlag, "", "scenario `file` that every arena Run and Survive plays instead of its own (also ARENA_REPLAY)")
	return flag.Lookup(ReplayFlag)
}()

// replayFile returns the scenario file forced by -arena.replay or
// ARENA_REPLAY, or "".
func replayFile() string {
	if v := replayFlag.Value.String(); v != "" {
		return v
	}
	return os.Getenv(ReplayEnv)
}

type shrinkOption time.Duration

func (o shrinkOption) apply(c *options) {
	c.given = append(c.given, "WithShrinkOnFailure")
	d := time.Duration(o)
	c.shrink = &d
}

// WithShrinkOnFailure shrinks a run that fails its gate to the smallest
// schedule that still fails the same way (shrink.Run), within budget of
// wall-clock time, and writes it as a scenario file to
// testdata/arena-shrunk/<test name>.yaml. The failure message then shows
// that schedule, how often it fails, and the command that replays it
// (-arena.replay). Each schedule tried runs on a fresh system: the default
// fake cluster, or WithFreshRuntime's; with WithRuntime (one runtime for
// every run) it is an error. In simulated time give it to SimulateRun or
// SimulateSurvive, whose System builds a fresh world for each schedule;
// inside Simulate it is an error. A survival run lists all its actions
// (TimelineCap up to scenario.MaxSteps) so that it can become a
// scenario.
func WithShrinkOnFailure(budget time.Duration) Option { return shrinkOption(budget) }

// checkFresh checks the options about fresh systems.
func (o *options) checkFresh() error {
	switch {
	case o.fresh != nil && o.runtime != nil:
		return errors.New("WithRuntime and WithFreshRuntime both given (choose one)")
	case o.fresh != nil && len(o.cluster) > 0:
		return errors.New("WithCluster tunes the default fake cluster; it does not apply with WithFreshRuntime")
	case o.shrink != nil && *o.shrink < 0:
		return fmt.Errorf("WithShrinkOnFailure: negative budget %s", *o.shrink)
	case o.shrink != nil && o.runtime != nil:
		return errors.New("WithShrinkOnFailure runs every schedule it tries on a fresh system: use the default fake cluster or WithFreshRuntime, not WithRuntime")
	}
	return nil
}

// shrinkFailure shrinks sc, which failed, writes the result for t and
// returns the lines of the failure message that tell of it.
func shrinkFailure(t TB, o *options, sc *scenario.Scenario) []string {
	res, err := shrink.Run(testContext(t), shrink.Config{
		Scenario: sc,
		System:   func(_ context.Context, seed uint64) (*engine.Service, error) { return newSystem(o, seed) },
		Budget:   *o.shrink,
	})
	return shrunkLines(t, res, err)
}

// shrunkLines are the lines of a failure message that tell of a shrink:
// its summary, the file written and the command that replays it.
func shrunkLines(t TB, res *shrink.Result, err error) []string {
	if res == nil {
		return []string{shrinkError(err)}
	}
	var b strings.Builder
	if werr := res.WriteText(&b); werr != nil {
		return []string{shrinkError(werr)}
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if err != nil {
		lines = append(lines, "  "+shrinkError(err))
	}
	path := filepath.Join(ShrunkDir, fileName(t.Name())+".yaml")
	if werr := writeShrunk(path, res); werr != nil {
		return append(lines, fmt.Sprintf("  not written: %v", werr))
	}
	if deterministic() {
		return append(lines, "  written to "+path, "replay exactly: "+detReplayFile(t, path))
	}
	return append(lines, "  written to "+path,
		fmt.Sprintf("replay: go test %s -%s=%s", selector(t), ReplayFlag, path))
}

// shrinkError says what stopped a shrink, with one "shrink:" in front:
// package shrink's own errors carry it already.
func shrinkError(err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "shrink: ") {
		return msg
	}
	return "shrink: " + msg
}

func writeShrunk(path string, res *shrink.Result) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeFile(path, res.WriteYAML)
}

// shrinkSurvival shrinks a survival run that failed: the faults that
// landed, as a scenario against WithGate's gate (or none: an aborted run
// fails by being aborted).
func shrinkSurvival(t TB, o *options, rep *engine.SurvivalReport) []string {
	var gate scenario.Gate
	if o.gate != nil {
		gate = *o.gate
	}
	sc, err := shrink.FromSurvival(rep, gate)
	if err != nil {
		return []string{shrinkError(err)}
	}
	return shrinkFailure(t, o, sc)
}

// replaySurvival is Survive under -arena.replay: Run plays the file on the
// system of opts, and reports; the survival report returned holds that
// run's report, its seed and how it ended.
func replaySurvival(t TB, path string, cfg engine.SurvivalConfig, opts []Option) *engine.SurvivalReport {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	rep := Run(t, path, opts...)
	if rep == nil {
		return nil
	}
	cfg.Seed = rep.Seed
	out := &engine.SurvivalReport{Report: rep.Report, Config: cfg, Ending: engine.SurvivalCompleted, ByType: map[fault.Type]engine.FaultTypeOutcome{}}
	if rep.Aborted != "" {
		out.Ending, out.Reason, out.Stopped = engine.SurvivalAborted, rep.Aborted, true
	}
	return out
}
