package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/htmlreport"
	"github.com/ares-arena/arena/scenario"
)

type runOptions struct {
	system systemOptions
	seed   uint64
	json   bool
	junit  string
	html   string
}

func newRunCmd(e *env) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run FILE|NAME",
		Short: "Run a scenario against the fake cluster and gate on its score",
		Long: "Run a scenario (a built-in name, see `arena list`, or a YAML file) against a fresh\n" +
			"fake cluster and print its report. The seed (--seed, else the scenario's, else drawn)\n" +
			"seeds the fake workload and the target selectors, so a run is reproducible; it is\n" +
			"printed with every report.\n\n" +
			"Exit codes: 0 the gate passed, 1 it failed, 2 bad input, 3 infrastructure error.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScenario(cmd, e, args[0], o)
		},
	}
	addSystemFlags(&o.system, cmd.Flags())
	cmd.Flags().Uint64Var(&o.seed, "seed", 0, "seed of the run (0: the scenario's seed, or drawn)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the report as JSON instead of text")
	cmd.Flags().StringVar(&o.junit, "junit", "", "also write the report as JUnit XML to `FILE`")
	cmd.Flags().StringVar(&o.html, "html", "", "also write the report as a self-contained HTML page (score, chart of health over time, faults) to `FILE`")
	return cmd
}

func runScenario(cmd *cobra.Command, e *env, arg string, o runOptions) error {
	if err := checkOutputs(arg, map[string]string{"junit": o.junit, "html": o.html}); err != nil {
		return err
	}
	sc, err := loadScenario(arg)
	if err != nil {
		return err
	}
	seed := o.seed
	if seed == 0 {
		seed = sc.Config.Seed
	}
	if seed == 0 {
		seed = engine.DrawSeed()
	}
	sc.Config.Seed = seed
	o.system.seed = seed
	sys, err := newSystem(o.system)
	if err != nil {
		return err
	}
	if !o.system.virtual {
		fmt.Fprintf(e.stderr, "arena: %s runs in real time, about %s\n", sc.Name, sc.PlannedLength())
	}
	rep, err := scenario.Run(cmd.Context(), sys.svc, sc)
	if rep == nil {
		if errors.Is(err, scenario.ErrInvalid) || errors.Is(err, fault.ErrNoDAG) || errors.Is(err, fault.ErrNoRuntime) {
			return badInput(err)
		}
		return infra(err)
	}
	if err := writeReport(e, rep, o); err != nil {
		return err
	}
	rerun := rerunCommand(cmd, []string{arg}, rep.Seed)
	switch rep.Gate.Verdict {
	case scenario.GatePassed:
		return nil
	case scenario.GateFailed:
		fmt.Fprintf(e.stderr, "arena: %s failed its gate (seed %d); rerun with: %s\n", sc.Name, rep.Seed, rerun)
		return quiet(exitGateFailed)
	default:
		return infra(fmt.Errorf("%s did not finish: %v (seed %d); rerun with: %s", sc.Name, err, rep.Seed, rerun))
	}
}

func writeReport(e *env, rep *scenario.Report, o runOptions) error {
	if o.json {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return infra(err)
		}
		if _, err := e.stdout.Write(append(b, '\n')); err != nil {
			return infra(err)
		}
	} else if err := rep.WriteText(e.stdout); err != nil {
		return infra(err)
	}
	if o.html != "" {
		if err := htmlreport.WriteFile(o.html, func(w io.Writer) error { return htmlreport.WriteScenario(w, rep) }); err != nil {
			return infra(fmt.Errorf("--html: %w", err))
		}
	}
	if o.junit == "" {
		return nil
	}
	f, err := os.Create(o.junit)
	if err != nil {
		return infra(fmt.Errorf("--junit: %w", err))
	}
	if err := rep.WriteJUnit(f); err != nil {
		f.Close()
		return infra(fmt.Errorf("--junit: %w", err))
	}
	if err := f.Close(); err != nil {
		return infra(fmt.Errorf("--junit: %w", err))
	}
	return nil
}
