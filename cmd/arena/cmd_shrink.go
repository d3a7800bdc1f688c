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

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/scenarios"
)

// maxReportSize caps a survival report read by shrink: a day's report
// listing every action is a few MiB.
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
			"--need of --runs runs (default 4 of 5).\n\n" +
			"Exit codes: 0 shrunk, 1 the input does not fail (nothing to shrink), 2 bad input,\n" +
			"3 infrastructure error or interrupted (the best schedule so far is written).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return shrink(cmd, e, args[0], o)
		},
	}
	f := cmd.Flags()
	addSystemFlags(&o.system, f)
	f.Uint64Var(&o.seed, "seed", 0, "seed of the run (0: the scenario's or the report's, or drawn)")
	f.DurationVar(&o.budget, "budget", arena.DefaultShrinkBudget, "wall-clock time the search may take; then the best schedule so far is the result")
	f.IntVar(&o.maxRuns, "max-runs", arena.DefaultShrinkMaxRuns, "runs the search may make")
	f.IntVar(&o.runs, "runs", 0, "runs per candidate (0: 1 in virtual time, 5 in real time)")
	f.IntVar(&o.need, "need", 0, "failing runs of --runs that make a candidate fail (0: 4/5 of --runs)")
	f.IntVar(&o.replays, "replays", arena.DefaultShrinkReplays, "replays of the result that measure its failure rate")
	f.StringVar(&o.out, "out", "", "write the shrunk scenario to `FILE` (default: standard output)")
	f.StringVar(&o.progress, "progress", "auto", "progress on stderr: auto (when a terminal), always, never")
	f.StringVar(&o.minGrade, "min-grade", "", "gate: the grade is at least this, e.g. B")
	f.Float64Var(&o.minScore, "min-score", 0, "gate: the score (0-100) is at least this")
	f.DurationVar(&o.maxMTTR, "max-mttr", 0, "gate: the mean time to recover is at most this")
	f.BoolVar(&o.allRecovered, "all-recovered", false, "gate: every fault recovered")
	f.BoolVar(&o.consistent, "consistent", false, "gate: every consistency check passed")
	return cmd
}

func shrink(cmd *cobra.Command, e *env, arg string, o shrinkOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	sc, err := shrinkInput(cmd.Context(), arg, &o)
	if err != nil {
		return err
	}
	cfg := arena.ShrinkConfig{Scenario: sc, System: o.system.factory, Runs: o.runs, Need: o.need, Replays: o.replays, Budget: o.budget, MaxRuns: o.maxRuns}
	showBar, err := wantProgress(o.progress, e.stderr)
	if err != nil {
		return err
	}
	stopBar := func() {}
	if showBar {
		cfg.Progress, stopBar = shrinkProgress(e.stderr)
	}
	res, err := arena.Shrink(cmd.Context(), cfg)
	stopBar()
	switch {
	case errors.Is(err, arena.ErrNoFailure):
		fmt.Fprintf(e.stderr, "arena: nothing to shrink: %v\n", err)
		return quiet(exitGateFailed)
	case res == nil && err != nil:
		var problems arena.ScenarioErrors
		if errors.As(err, &problems) || errors.Is(err, arena.ErrNoDAG) || errors.Is(err, arena.ErrNoRuntime) {
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

func (o *shrinkOptions) check() error {
	switch {
	case o.budget <= 0 || o.budget > maxDuration:
		return badInput(fmt.Errorf("--budget: want a duration above 0 and at most %s, got %s", maxDuration, o.budget))
	case o.maxRuns < 1:
		return badInput(fmt.Errorf("--max-runs: want at least 1, got %d", o.maxRuns))
	case o.runs < 0 || o.need < 0 || o.replays < 1:
		return badInput(fmt.Errorf("--runs, --need, --replays: want counts (--replays at least 1), got %d, %d, %d", o.runs, o.need, o.replays))
	case o.need > 0 && o.runs == 0 || o.need > o.runs:
		return badInput(fmt.Errorf("--need: %d is not between 1 and --runs (%d)", o.need, o.runs))
	case o.minScore < 0 || o.minScore > 100:
		return badInput(fmt.Errorf("--min-score: %v is not between 0 and 100", o.minScore))
	case o.maxMTTR < 0:
		return badInput(fmt.Errorf("--max-mttr: negative duration %s", o.maxMTTR))
	}
	return nil
}

// gate applies the gate flags to g: each flag given sets its criterion.
func (o *shrinkOptions) gate(g arena.Gate) (arena.Gate, bool, error) {
	given := false
	if o.minGrade != "" {
		grade, err := arena.ParseGrade(o.minGrade)
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
		d := arena.Duration(o.maxMTTR)
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
// from the flags) or a survival report turned into one.
func shrinkInput(ctx context.Context, arg string, o *shrinkOptions) (*arena.Scenario, error) {
	var sc *arena.Scenario
	var rep *arena.SurvivalReport
	var err error
	if fi, serr := os.Stat(arg); !slices.Contains(scenarios.Names(), arg) && (arg == stdinArg || serr == nil && fi.Mode().IsRegular()) {
		data, err := readInput(arg)
		if err != nil {
			return nil, badInput(err)
		}
		if sc, rep, err = parseShrinkInput(data, arg); err != nil {
			return nil, badInput(err)
		}
	} else if sc, err = loadScenario(arg); err != nil { // a built-in name, as for run
		return nil, err
	}
	if rep == nil {
		g, _, err := o.gate(sc.Expect)
		if err != nil {
			return nil, err
		}
		sc.Expect = g
		switch {
		case o.seed != 0:
			sc.Config.Seed = o.seed
		case sc.Config.Seed == 0:
			sc.Config.Seed = arena.DrawSeed()
		}
		return sc, nil
	}
	g, given, err := o.gate(arena.Gate{})
	switch {
	case err != nil:
		return nil, err
	case !given && rep.Ending != arena.SurvivalAborted:
		return nil, badInput(errors.New("a survival report has no gate: give --min-grade, --min-score, --max-mttr, --all-recovered or --consistent"))
	case o.seed != 0 && o.seed != rep.Config.Seed:
		return nil, badInput(fmt.Errorf("--seed: %d is not the report's seed %d", o.seed, rep.Config.Seed))
	}
	full, err := arena.CompleteSurvival(ctx, rep, o.system.factory)
	if err != nil {
		return nil, badInput(err)
	}
	if sc, err = arena.ScenarioFromSurvival(full, g); err != nil {
		return nil, badInput(err)
	}
	return sc, nil
}

// factory makes a fresh system like o, seeded with seed: one for each run
// of a shrink.
func (o systemOptions) factory(_ context.Context, seed uint64) (*arena.Service, error) {
	o.seed = seed
	sys, err := newSystem(o)
	if err != nil {
		return nil, err
	}
	return sys.svc, nil
}

func readInput(arg string) ([]byte, error) {
	var r io.Reader = os.Stdin
	if arg != stdinArg {
		f, err := os.Open(arg)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxReportSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	if len(data) > maxReportSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", arg, maxReportSize)
	}
	return data, nil
}

// parseShrinkInput tells a survival report (a JSON object with config,
// events and report) from a scenario (YAML, or JSON, which is YAML) and
// decodes it. A scenario report is refused with the fix: shrink the
// scenario it ran.
func parseShrinkInput(data []byte, name string) (*arena.Scenario, *arena.SurvivalReport, error) {
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		var keys map[string]json.RawMessage
		if json.Unmarshal(trimmed, &keys) == nil {
			_, hasEvents := keys["events"]
			_, hasConfig := keys["config"]
			_, hasSteps := keys["steps"]
			switch {
			case hasEvents && hasConfig:
				var rep arena.SurvivalReport
				if err := json.Unmarshal(trimmed, &rep); err != nil {
					return nil, nil, fmt.Errorf("%s: survival report: %w", name, err)
				}
				if rep.Report == nil {
					return nil, nil, fmt.Errorf("%s: survival report: no report object", name)
				}
				return nil, &rep, nil
			case hasSteps:
				return nil, nil, fmt.Errorf("%s: a scenario report: shrink the scenario it ran (its file or built-in name)", name)
			}
		}
	}
	sc, err := arena.LoadScenario(data, name)
	if err != nil {
		return nil, nil, err
	}
	return sc, nil, nil
}

func writeShrunk(e *env, res *arena.ShrinkResult, out string) error {
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
func shrinkProgress(w io.Writer) (func(arena.ShrinkProgress), func()) {
	bar := progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("shrink"),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	update := func(p arena.ShrinkProgress) {
		bar.Describe(fmt.Sprintf("shrink: %d runs, %d faults (%s), %s", p.Runs, p.Faults, p.Length, p.Pass))
		_ = bar.Add(1)
	}
	return update, func() { _ = bar.Finish() }
}
