package main

import (
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/schema"
	"github.com/spf13/cobra"
)

func newSchemaCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of scenario files",
		Long: "Print the JSON Schema of scenario files for the CLI's system: its fault types, each with\n" +
			"its targets and metadata (for the fake cluster, the built-ins: the\n" +
			"scenarios/scenario.schema.json shipped with arena). Point an editor at it with the first line\n" +
			"# yaml-language-server: $schema=<path or URL of the schema>",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sys, err := newSystem(systemOptions{virtual: true, workers: fakes.DefaultWorkers})
			if err != nil {
				return err
			}
			b, err := schema.For(sys.svc.Injector())
			if err != nil {
				return infra(err)
			}
			if _, err := e.stdout.Write(b); err != nil {
				return infra(err)
			}
			return nil
		},
	}
}
