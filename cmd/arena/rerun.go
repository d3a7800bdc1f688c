package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// outputFlags change where and how a report is written, never what happens:
// a rerun command leaves them out (add your own).
var outputFlags = map[string]bool{"json": true, "junit": true, "html": true, "progress": true}

// rerunCommand is the command that reruns cmd: its arguments, every flag
// given that can change the outcome (the system's, the observation
// settings, the gate's, the chaos'), always the flags named in explicit
// with their values, and --seed set to the run's seed. A test runs it and
// compares the reports.
func rerunCommand(cmd *cobra.Command, args []string, seed uint64, explicit ...string) string {
	parts := []string{"arena", cmd.Name()}
	for _, a := range args {
		parts = append(parts, shellQuote(a))
	}
	flags := cmd.Flags()
	seen := map[string]bool{}
	add := func(f *pflag.Flag) {
		if seen[f.Name] || outputFlags[f.Name] || f.Name == "seed" {
			return
		}
		seen[f.Name] = true
		parts = append(parts, "--"+f.Name+"="+shellQuote(f.Value.String()))
	}
	for _, name := range explicit {
		if f := flags.Lookup(name); f != nil {
			add(f)
		}
	}
	flags.Visit(add) // the flags given, in name order
	return strings.Join(append(parts, fmt.Sprintf("--seed=%d", seed)), " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=,+@%-]+$`)

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
