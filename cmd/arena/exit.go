package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitPass       = 0 // the gate passed (or the command did its job)
	exitGateFailed = 1 // the scenario ran and failed its gate
	exitBadInput   = 2 // flags, arguments, files or scenarios at fault
	exitInfra      = 3 // the harness failed: output not written, run interrupted
)

// exitError carries an exit code with its message. An empty message means
// the command has already said everything (reports, validation errors).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func badInput(err error) error { return &exitError{code: exitBadInput, err: err} }
func infra(err error) error    { return &exitError{code: exitInfra, err: err} }

// quiet exits with code without a further message.
func quiet(code int) error { return &exitError{code: code} }

// usageError is an error in the command line: bad input, with a pointer to
// the help.
func usageError(cmd *cobra.Command, err error) error {
	return badInput(fmt.Errorf("%w\nRun '%s --help' for usage.", err, cmd.CommandPath()))
}

// classify maps a command's error to its exit code and message. Errors that
// are not an exitError come from cobra's argument checks: bad input.
func classify(err error) (int, string) {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code, ee.Error()
	}
	return exitBadInput, err.Error()
}
