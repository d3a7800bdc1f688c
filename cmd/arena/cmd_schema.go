package main

import (
	"github.com/ares-arena/arena/scenarios"
	"github.com/spf13/cobra"
)

func newSchemaCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of scenario files",
		Long: "Print the JSON Schema of scenario files (the scenarios/scenario.schema.json shipped\n" +
			"with arena). Point an editor at it with the first line\n" +
			"# yaml-language-server: $schema=<path or URL of the schema>",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := e.stdout.Write(scenarios.Schema()); err != nil {
				return infra(err)
			}
			return nil
		},
	}
}
