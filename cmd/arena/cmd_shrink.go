package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/scenarios"
	"github.com/ares-arena/arena/shrink"
)

// maxReportSize caps a survival report read by shrink: a day's report
// listing every action is a few MiB. It is streamed (shrink.ReadSurvival),
// so the cap bounds the time spent reading, not the memory.
const maxReportSize = 256 << 20

type shrinkOptions struct {
	system   systemOptions
	seed     uint64
	budget   time.Duration
	maxRuns  int
	runs     int
	need     int
	replays  int
	out      string
	progress string

	minGrade     string
	minScore     float64
	maxMTTR      time.Duration
	allRecovered bool
	consistent   bool
}

func newShrinkCmd(e *env) *cobra.Command {
	var o shrinkOptions
	cmd := &cobra.Command{
		Use:   "shrink FILE|NAME|REPORT.json",
		Short: "Shrink a failing run to the smallest schedule that still fails, as a scenario file",
		Long: "Replay a failing run against fresh fake clusters and search for the smallest schedule\n" +
			"that still fails the same way (its gate fails again, for the same reasons): fewer\n" +
			"faults, closer together, shorter, simpler. The input is a scenario (a built-in name or\n" +
			"a file) or the JSON report of a survival run (`arena survive --json`), whose gate is\n" +
			"given by the gate flags. The result is an ordinary scenario file, with the seed and\n" +
			"the gate, that `arena run` replays; it is written to --out (else standard output)\n" +
			"with a summary and its failure rate on standard error.\n\n" +
			"The system flags (--workers, --virtual, the observation settings) must be those of the\n" +
			"failing run. In virtual time each candidate is judged by one run; in real time by\n" +
			"--need of --runs runs (default 4 of 5). --budget bounds every run of the search, the\n" +
			"replay of a survival report that does not list every action included; the replays\n" +
			"that measure the result's failure rate come after it.\n\n" +
			"Exit codes: 0 shrunk, 1 the input does not fail (nothing to shrink), 2 bad input\n" +
			"or flag, 3 infrastructure error, interrupted, or --budget spent before the original\n" +
			"was judged again (once the search has begun, the best schedule so far is written).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return shrinkCmd(cmd, e, args[0], o)
		},
	}
	f := cmd.Flags()
	addSystemFlags(&o.system, f)
	f.Uint64Var(&o.seed, "seed", 0, "seed of the run (0: the scenario's or the report's, or drawn)")
	f.DurationVar(&o.budget, "budget", shrink.DefaultBudget, "wall-clock time the search may take, a survival report's replay included; then the best schedule so far is the result")
	f.IntVar(&o.maxRuns, "max-runs", shrink.DefaultMaxRuns, "runs the search may make")
	f.IntVar(&o.runs, "runs", 0, "runs per candidate (0: 1 in virtual time, 5 in real time)")
	f.IntVar(&o.need, "need", 0, "failing runs of --runs that make a candidate fail (0: 4/5 of --runs)")
	f.IntVar(&o.replays, "replays", shrink.DefaultReplays, "replays of the result that measure its failure rate")
	f.StringVar(&o.out, "out", "", "write the shrunk scenario to `FILE` (default: standard output)")
	f.StringVar(&o.progress, "progress", "auto", "progress on stderr: auto (when a terminal), always, never")
	f.StringVar(&o.minGrade, "min-grade", "", "gate: the grade is at least this, e.g. B")
	f.Float64Var(&o.minScore, "min-score", 0, "gate: the score (0-100) is at least this")
	f.DurationVar(&o.maxMTTR, "max-mttr", 0, "gate: the mean time to recover is at most this")
	f.BoolVar(&o.allRecovered, "all-recovered", false, "gate: every fault recovered")
	f.BoolVar(&o.consistent, "consistent", false, "gate: every consistency check passed")
	return cmd
}

func shrinkCmd(cmd *cobra.Command, e *env, arg string, o shrinkOptions) error {
	if err := o.check(arg); err != nil {
		return err
	}
	showBar, err := wantProgress(o.progress, e.stderr)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	sc, started, err := shrinkInput(ctx, arg, &o)
	if err != nil {
		return err
	}
	cfg := shrink.Config{Scenario: sc, System: o.system.factory, Runs: o.runs, Need: o.need, Replays: o.replays,
		Budget: o.budget, Started: started, MaxRuns: o.maxRuns}
	stopBar := func() {}
	if showBar {
		cfg.Progress, stopBar = shrinkProgress(e.stderr)
	}
	res, err := shrink.Run(ctx, cfg)
	stopBar()
	switch {
	case res == nil && ctx.Err() != nil:
		return infra(err) // interrupted: whatever the error says, nothing is wrong with the input
	case errors.Is(err, shrink.ErrNoFailure):
		fmt.Fprintf(e.stderr, "arena: nothing to shrink: %v\n", err)
		return quiet(exitGateFailed)
	case res == nil && err != nil:
		var problems scenario.Errors
		if errors.As(err, &problems) || errors.Is(err, fault.ErrNoDAG) || errors.Is(err, fault.ErrNoRuntime) {
			return badInput(err)
		}
		return infra(err)
	}
	if werr := writeShrunk(e, res, o.out); werr != nil {
		return werr
	}
	if werr := res.WriteText(e.stderr); werr != nil {
		return infra(werr)
	}
	if o.out != "" {
		fmt.Fprintf(e.stderr, "wrote %s; replay with: arena run %s%s\n", o.out, o.out, systemArgs(cmd.Flags()))
	}
	if err != nil {
		return infra(fmt.Errorf("shrink did not finish: %v (the best schedule so far is written)", err))
	}
	return nil
}

// check refuses every bad flag (exit 2, naming it) before anything runs:
// a value shrink.Run or a system would refuse later is refused here.
func (o *shrinkOptions) check(input string) error {
	switch {
	case o.budget <= 0 || o.budget > maxDuration:
		return badInput(fmt.Errorf("--budget: want a duration above 0 and at most %s, got %s", maxDuration, o.budget))
	case o.maxRuns < 1:
		return badInput(fmt.Errorf("--max-runs: want at least 1, got %d", o.maxRuns))
	case o.runs < 0 || o.runs > shrink.MaxRepeats:
		return badInput(fmt.Errorf("--runs: want 0 to %d, got %d", shrink.MaxRepeats, o.runs))
	case o.replays < 1 || o.replays > shrink.MaxRepeats:
		return badInput(fmt.Errorf("--replays: want 1 to %d, got %d", shrink.MaxRepeats, o.replays))
	case o.need < 0 || o.need > 0 && o.runs == 0 || o.need > o.runs:
		return badInput(fmt.Errorf("--need: %d is not between 1 and --runs (%d)", o.need, o.runs))
	case !(o.minScore >= 0 && o.minScore <= 100): // NaN too: it would switch the gate off
		return badInput(fmt.Errorf("--min-score: %v is not between 0 and 100", o.minScore))
	case o.maxMTTR < 0:
		return badInput(fmt.Errorf("--max-mttr: negative duration %s", o.maxMTTR))
	}
	if err := o.system.check(); err != nil {
		return err
	}
	return checkOutputs(input, map[string]string{"out": o.out})
}

// gate applies the gate flags to g: each flag given sets its criterion.
func (o *shrinkOptions) gate(g scenario.Gate) (scenario.Gate, bool, error) {
	given := false
	if o.minGrade != "" {
		grade, err := engine.ParseGrade(o.minGrade)
		if err != nil {
			return g, false, badInput(fmt.Errorf("--min-grade: %w", err))
		}
		g.MinGrade, given = grade, true
	}
	if o.minScore > 0 {
		s := o.minScore
		g.MinScore, given = &s, true
	}
	if o.maxMTTR > 0 {
		d := clock.Duration(o.maxMTTR)
		g.MaxMTTR, given = &d, true
	}
	if o.allRecovered {
		g.AllRecovered, given = true, true
	}
	if o.consistent {
		g.Consistent, given = true, true
	}
	return g, given, nil
}

// shrinkInput reads the failing run: a scenario (its seed and gate set
// from the flags) or a survival report turned into one. A report that does
// not list every action is replayed in full: that replay is the search's
// first run, so --budget starts with it, at started (zero when there was
// none).
func shrinkInput(ctx context.Context, arg string, o *shrinkOptions) (*scenario.Scenario, time.Time, error) {
	var sc *scenario.Scenario
	var rep *engine.SurvivalReport
	var err error
	if fi, serr := os.Stat(arg); !slices.Contains(scenarios.Names(), arg) && (arg == stdinArg || serr == nil && fi.Mode().IsRegular()) {
		if sc, rep, err = readShrinkInput(arg); err != nil {
			return nil, time.Time{}, badInput(err)
		}
	} else if sc, err = loadScenario(arg); err != nil { // a built-in name, as for run
		return nil, time.Time{}, err
	}
	if rep == nil {
		g, _, err := o.gate(sc.Expect)
		if err != nil {
			return nil, time.Time{}, err
		}
		sc.Expect = g
		switch {
		case o.seed != 0:
			sc.Config.Seed = o.seed
		case sc.Config.Seed == 0:
			sc.Config.Seed = engine.DrawSeed()
		}
		return sc, time.Time{}, nil
	}
	g, given, err := o.gate(scenario.Gate{})
	switch {
	case err != nil:
		return nil, time.Time{}, err
	case !given && rep.Ending != engine.SurvivalAborted:
		return nil, time.Time{}, badInput(errors.New("a survival report has no gate: give --min-grade, --min-score, --max-mttr, --all-recovered or --consistent"))
	case o.seed != 0 && o.seed != rep.Config.Seed:
		return nil, time.Time{}, badInput(fmt.Errorf("--seed: %d is not the report's seed %d", o.seed, rep.Config.Seed))
	}
	started := time.Now()
	budget, cancel := context.WithDeadline(ctx, started.Add(o.budget))
	defer cancel()
	full, err := shrink.CompleteSurvival(budget, rep, o.system.factory)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, started, infra(fmt.Errorf("survival replay: %w", context.Cause(ctx)))
	case budget.Err() != nil:
		return nil, started, infra(fmt.Errorf("survival replay: %w (--budget %s) before the search began", shrink.ErrOutOfTime, o.budget))
	default:
		return nil, started, badInput(err)
	}
	if sc, err = shrink.FromSurvival(full, g); err != nil {
		return nil, started, badInput(err)
	}
	return sc, started, nil
}

// factory makes a fresh system like o, seeded with seed: one for each run
// of a shrink.
func (o systemOptions) factory(_ context.Context, seed uint64) (*engine.Service, error) {
	o.seed = seed
	sys, err := newSystem(o)
	if err != nil {
		return nil, err
	}
	return sys.svc, nil
}

// readShrinkInput reads the file arg, or standard input for "-": a
// scenario (at most scenario.MaxSize bytes) or a survival report (at most
// maxReportSize), which is streamed: a report is never held whole.
func readShrinkInput(arg string) (*scenario.Scenario, *engine.SurvivalReport, error) {
	var r io.Reader = os.Stdin
	if arg != stdinArg {
		f, err := os.Open(arg)
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		r = f
	}
	r = &capReader{r: r, limit: maxReportSize}
	head, err := io.ReadAll(io.LimitReader(r, scenario.MaxSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", arg, err)
	}
	if len(head) <= scenario.MaxSize {
		return parseShrinkInput(head, arg)
	}
	// Larger than a scenario may be: a survival report, or nothing shrink reads.
	if t := bytes.TrimSpace(head); len(t) == 0 || t[0] != '{' {
		return nil, nil, fmt.Errorf("%s: larger than a scenario may be (%d bytes), and not a survival report (a JSON object)", arg, scenario.MaxSize)
	}
	rep, err := shrink.ReadSurvival(io.MultiReader(bytes.NewReader(head), r))
	var big *tooLargeError
	switch {
	case errors.As(err, &big):
		return nil, nil, fmt.Errorf("%s: %w", arg, big)
	case err != nil:
		return nil, nil, fmt.Errorf("%s: %w", arg, err)
	}
	return nil, rep, nil
}

// parseShrinkInput tells a survival report (a JSON object with config,
// events and report) from a scenario (YAML, or JSON, which is YAML) and
// decodes it. A scenario report is refused with the fix: shrink the
// scenario it ran.
func parseShrinkInput(data []byte, name string) (*scenario.Scenario, *engine.SurvivalReport, error) {
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		var keys map[string]json.RawMessage
		if json.Unmarshal(trimmed, &keys) == nil {
			_, hasEvents := keys["events"]
			_, hasConfig := keys["config"]
			_, hasSteps := keys["steps"]
			switch {
			case hasEvents && hasConfig:
				rep, err := shrink.ReadSurvival(bytes.NewReader(trimmed))
				if err != nil {
					return nil, nil, fmt.Errorf("%s: %w", name, err)
				}
				return nil, rep, nil
			case hasSteps:
				return nil, nil, fmt.Errorf("%s: a scenario report: shrink the scenario it ran (its file or built-in name)", name)
			}
		}
	}
	sc, err := scenario.Load(data, name)
	if err != nil {
		return nil, nil, err
	}
	return sc, nil, nil
}

func writeShrunk(e *env, res *shrink.Result, out string) error {
	if out == "" {
		if err := res.WriteYAML(e.stdout); err != nil {
			return infra(err)
		}
		return nil
	}
	var b bytes.Buffer
	if err := res.WriteYAML(&b); err != nil {
		return infra(err)
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return infra(fmt.Errorf("--out: %w", err))
	}
	return nil
}

// systemArgs are the system flags given, for the replay command: `arena
// run` must build the same system.
func systemArgs(flags *pflag.FlagSet) string {
	var probe systemOptions
	names := map[string]bool{}
	fs := pflag.NewFlagSet("system", pflag.ContinueOnError)
	addSystemFlags(&probe, fs)
	fs.VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
	var b strings.Builder
	flags.Visit(func(f *pflag.Flag) {
		if names[f.Name] {
			fmt.Fprintf(&b, " --%s=%s", f.Name, f.Value)
		}
	})
	return b.String()
}

// shrinkProgress draws the search's progress (runs, the size of the best
// schedule) until the returned stop is called.
func shrinkProgress(w io.Writer) (func(shrink.Progress), func()) {
	bar := progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("shrink"),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	update := func(p shrink.Progress) {
		bar.Describe(fmt.Sprintf("shrink: %d runs, %d faults (%s), %s", p.Runs, p.Faults, p.Length, p.Pass))
		_ = bar.Add(1)
	}
	return update, func() { _ = bar.Finish() }
}
