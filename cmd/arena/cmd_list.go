package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/ares-arena/arena/scenarios"
	"github.com/spf13/cobra"
)

func newListCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSTEPS\tLENGTH\tGATE\tTAGS")
			for _, name := range scenarios.Names() {
				sc, err := scenarios.Load(name)
				if err != nil {
					return infra(err) // the library is embedded and tested: a build problem
				}
				g := sc.Expect
				gate := "grade ≥ " + g.MinGrade.String()
				if g.MaxMTTR != nil {
					gate += ", MTTR ≤ " + g.MaxMTTR.String()
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", name, len(sc.Actions), sc.PlannedLength(), gate, strings.Join(sc.Tags, ","))
			}
			if err := tw.Flush(); err != nil {
				return infra(err)
			}
			return nil
		},
	}
}
