package main

import (
	"fmt"

	"github.com/ares-arena/arena/fakes"

	"github.com/spf13/cobra"

	"github.com/ares-arena/arena/scenario"
)

func newValidateCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE|NAME...",
		Short: "Check scenario files strictly and report every problem",
		Long: "Load each scenario (a regular file of at most 1 MiB, - for standard input, or a\n" +
			"built-in name) with the same strict checks as run:\n" +
			"unknown keys, wrong types, per-type targets and metadata, labels, dependencies and\n" +
			"cycles, durations, the gate, and that the system's runtime can land every step (a\n" +
			"runtime without a capability: actions[3].action.type: mcp_disconnect is not supported by\n" +
			"this runtime). Every problem is printed as file:line:column: field: message.\n\n" +
			"Exit codes: 0 all valid, 2 any invalid.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sys, err := newSystem(systemOptions{virtual: true, workers: fakes.DefaultWorkers})
			if err != nil {
				return err
			}
			invalid := 0
			for _, arg := range args {
				sc, err := loadScenario(arg)
				if err == nil {
					err = scenario.ValidateFor(sys.svc, sc)
				}
				if err != nil {
					invalid++
					_, msg := classify(err)
					fmt.Fprintln(e.stderr, msg)
					continue
				}
				fmt.Fprintf(e.stdout, "ok  %s: %s, %d steps, planned %s\n", arg, sc.Name, len(sc.Actions), sc.PlannedLength())
			}
			if invalid > 0 {
				return badInput(fmt.Errorf("%d of %d scenarios invalid", invalid, len(args)))
			}
			return nil
		},
	}
}
