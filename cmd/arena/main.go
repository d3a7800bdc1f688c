// Command arena runs chaos scenarios against the in-memory fake cluster and
// gates on their scores.
//
//	arena run leader-failover            # a built-in scenario, in virtual time
//	arena run ./my-scenario.yaml --seed 7 --json --junit report.xml
//	arena validate scenarios/*.yaml      # strict checks, every problem with file:line:column
//	arena list                           # the built-in library
//	arena schema > scenario.schema.json  # the JSON Schema of scenario files
//	arena serve --addr 127.0.0.1:8080    # the HTTP API over the fake cluster (package arenahttp)
//	arena shrink report.json --consistent --out min.yaml  # a failing run, shrunk to a scenario
//
// A scenario argument is the name of a built-in scenario (`arena list`) or,
// when it is not one, a file path (write ./name for a file named like a
// built-in).
//
// Exit codes: 0 the gate passed, 1 the gate failed, 2 bad input (flags,
// files, invalid scenarios), 3 infrastructure error (a report that cannot be
// written, an interrupted run).
//
// Each command lives in its own cmd_<name>.go; the system the commands run
// against (a seeded fake cluster and a service, on a virtual clock unless
// --virtual=false) is built in system.go.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ares-arena/arena/scenario"
)

func main() { os.Exit(mainCode(os.Args[1:])) }

// mainCode runs the command line args as the process: SIGINT and SIGTERM
// cancel the command, which then has interruptGrace to end.
func mainCode(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	signalsHandled()
	watch := exitAfterGrace(ctx, interruptGrace, os.Stderr, os.Exit)
	defer watch()
	return run(ctx, args, os.Stdout, os.Stderr)
}

// signalsHandled is called once SIGINT and SIGTERM are handled: the tests'
// child processes tell their parent then (child_test.go).
var signalsHandled = func() {}

// env is what every command writes to.
type env struct {
	stdout, stderr io.Writer
}

// run executes the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr}
	root := newRootCmd(e)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitPass
	}
	code, msg := classify(err)
	var problems scenario.Errors
	switch {
	case errors.As(err, &problems):
		fmt.Fprintln(stderr, msg) // file:line:column: … lines, as compilers print them
	case msg != "":
		fmt.Fprintln(stderr, "arena: "+msg)
	}
	return code
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "arena",
		Short: "Chaos scenarios against a self-healing agent cluster, scored and gated",
		Long: "arena injects faults into a system of agents, watches it heal, scores the healing\n" +
			"(availability, recovery, consistency; graded A+ to F) and gates on the score.\n\n" +
			"Exit codes: 0 passed, 1 gate failed, 2 bad input, 3 infrastructure error.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError(cmd, err)
	})
	root.AddCommand(
		newRunCmd(e),
		newValidateCmd(e),
		newListCmd(e),
		newSchemaCmd(e),
		newSurviveCmd(e),
		newServeCmd(e),
		newShrinkCmd(e),
	)
	return root
}
