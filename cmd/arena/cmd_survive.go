package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/internal/htmlreport"
)

type surviveOptions struct {
	system   systemOptions
	cfg      engine.SurvivalConfig
	mix      string
	json     bool
	html     string
	minGrade string
	minScore float64
	progress string
}

func newSurviveCmd(e *env) *cobra.Command {
	var o surviveOptions
	cmd := &cobra.Command{
		Use:   "survive",
		Short: "Seeded random chaos for a long time against the fake cluster, scored",
		Long: "Inject a random fault every --interval for --duration, chosen from --mix among the\n" +
			"faults that can land now, and score how the fake cluster keeps healing. In virtual\n" +
			"time (the default) a day of chaos takes seconds. The seed (--seed, else drawn) seeds\n" +
			"the fake workload and every choice, and is printed with the report.\n\n" +
			"Exit codes: 0 passed (or no gate given), 1 below --min-grade/--min-score,\n" +
			"2 bad input, 3 infrastructure error or interrupted (the report so far is printed).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return survive(cmd, e, o) },
	}
	f := cmd.Flags()
	addSystemFlags(&o.system, f)
	f.DurationVar(&o.cfg.Duration, "duration", engine.DefaultSurvivalDuration, "how long the chaos lasts")
	f.DurationVar(&o.cfg.Interval, "interval", engine.DefaultSurvivalInterval, "time between injections")
	f.Uint64Var(&o.cfg.Seed, "seed", 0, "seed of the run (0: drawn and printed)")
	f.StringVar(&o.mix, "mix", "", "weights of the action types, e.g. kill_agent=2,llm_failure=1 (default: every type, weight 1)")
	f.IntVar(&o.cfg.MaxActiveFaults, "max-active", engine.DefaultMaxActiveFaults, "faults awaiting a verdict at most")
	f.BoolVar(&o.json, "json", false, "print the report as JSON instead of text")
	f.StringVar(&o.html, "html", "", "also write the report as a self-contained HTML page (score, chart of health over time, faults) to `FILE`")
	f.StringVar(&o.minGrade, "min-grade", "", "fail (exit 1) below this grade, e.g. B")
	f.Float64Var(&o.minScore, "min-score", 0, "fail (exit 1) below this score (0-100)")
	f.StringVar(&o.progress, "progress", "auto", "progress bar on stderr: auto (when a terminal), always, never")
	return cmd
}

func survive(cmd *cobra.Command, e *env, o surviveOptions) error {
	ctx := cmd.Context()
	var min engine.Grade
	if o.minGrade != "" {
		g, err := engine.ParseGrade(o.minGrade)
		if err != nil {
			return badInput(fmt.Errorf("--min-grade: %w", err))
		}
		min = g
	}
	if !(o.minScore >= 0 && o.minScore <= 100) { // NaN too: it would switch the gate off
		return badInput(fmt.Errorf("--min-score: %v is not between 0 and 100", o.minScore))
	}
	if o.cfg.MaxActiveFaults < 1 || o.cfg.MaxActiveFaults > engine.MaxSurvivalActiveFaults {
		return badInput(fmt.Errorf("--max-active: want 1 to %d, got %d", engine.MaxSurvivalActiveFaults, o.cfg.MaxActiveFaults))
	}
	if err := checkDuration("duration", o.cfg.Duration); err != nil {
		return err
	}
	if err := checkDuration("interval", o.cfg.Interval); err != nil {
		return err
	}
	if o.mix != "" {
		mix, err := engine.ParseMix(o.mix)
		if err != nil {
			return badInput(fmt.Errorf("--%w", err))
		}
		o.cfg.Mix = mix
	}
	if o.cfg.Seed == 0 {
		o.cfg.Seed = engine.DrawSeed()
	}
	o.system.seed = o.cfg.Seed
	sys, err := newSystem(o.system)
	if err != nil {
		return err
	}
	showBar, err := wantProgress(o.progress, e.stderr)
	if err != nil {
		return err
	}
	stopBar := func() {}
	if showBar {
		stopBar = progress(sys.svc, e.stderr)
	}
	rep, err := sys.svc.RunSurvival(ctx, o.cfg)
	stopBar()
	if rep == nil {
		if errors.Is(err, engine.ErrSurvivalRunning) {
			return infra(err)
		}
		return badInput(err)
	}
	if werr := writeSurvival(e, rep, o.json); werr != nil {
		return werr
	}
	if o.html != "" {
		if werr := htmlreport.WriteFile(o.html, func(w io.Writer) error { return htmlreport.WriteSurvival(w, rep) }); werr != nil {
			return infra(fmt.Errorf("--html: %w", werr))
		}
	}
	rerun := rerunCommand(cmd, nil, rep.Seed, "duration", "interval")
	if err != nil {
		return infra(fmt.Errorf("survival did not finish: %v (seed %d); rerun with: %s", err, rep.Seed, rerun))
	}
	var reasons []string
	if rep.Ending == engine.SurvivalAborted {
		reasons = append(reasons, "aborted: "+rep.Reason)
	}
	if rep.Score.NoneLanded { // faults tried, none landed: no grade, a failure whatever the minimums
		reasons = append(reasons, "no grade: "+rep.Score.Ungraded)
	}
	if min != engine.GradeNone && !rep.Score.Grade.AtLeast(min) && !rep.Score.NoneLanded {
		reasons = append(reasons, fmt.Sprintf("grade %s is below %s", rep.Score.Grade, min))
	}
	if o.minScore > 0 && (!rep.Score.Measured || rep.Score.Total < o.minScore) && !rep.Score.NoneLanded {
		reasons = append(reasons, fmt.Sprintf("score %.1f is below %.1f", rep.Score.Total, o.minScore))
	}
	if len(reasons) > 0 {
		fmt.Fprintf(e.stderr, "arena: survival failed: %v (seed %d); rerun with: %s\n", reasons, rep.Seed, rerun)
		return quiet(exitGateFailed)
	}
	return nil
}

func writeSurvival(e *env, rep *engine.SurvivalReport, asJSON bool) error {
	if asJSON {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return infra(err)
		}
		if _, err := e.stdout.Write(append(b, '\n')); err != nil {
			return infra(err)
		}
		return nil
	}
	if err := rep.WriteText(e.stdout); err != nil {
		return infra(err)
	}
	return nil
}

// wantProgress decides whether to draw the progress bar: by default only
// when stderr is a terminal, so logs and CI output stay clean.
func wantProgress(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		f, ok := w.(*os.File)
		return ok && term.IsTerminal(int(f.Fd())), nil
	}
	return false, badInput(fmt.Errorf("--progress: %q is not auto, always or never", mode))
}

// progress draws a bar of the survival run's progress (on its own clock)
// until the returned stop is called.
func progress(svc *engine.Service, w io.Writer) (stop func()) {
	bar := progressbar.NewOptions(1000,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("survival"),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				_ = bar.Finish()
				return
			case <-t.C:
				st := svc.SurvivalStatus()
				if !st.Running {
					continue
				}
				bar.Describe(fmt.Sprintf("survival %s/%s, %d actions, score %.1f", st.Elapsed.D().Round(time.Second), st.Duration, st.Actions, st.Score.Total))
				_ = bar.Set(int(st.Progress * 1000))
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
