package main

import (
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/scenarios"
)

// loadScenario resolves a scenario argument, a built-in name or a file path
// (scenarios.Resolve), or "-" for standard input. Every failure is bad input.
func loadScenario(arg string) (*scenario.Scenario, error) {
	if arg == stdinArg {
		sc, err := readStdinScenario()
		if err != nil {
			return nil, badInput(err)
		}
		return sc, nil
	}
	sc, err := scenarios.Resolve(arg) // a file must be a regular one (scenario.LoadFile)
	if err != nil {
		return nil, badInput(err)
	}
	return sc, nil
}
