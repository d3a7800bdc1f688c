package main

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/scenarios"
)

// loadScenario resolves a scenario argument: the name of a built-in scenario,
// or else a file path. Every failure is bad input.
func loadScenario(arg string) (*arena.Scenario, error) {
	if slices.Contains(scenarios.Names(), arg) {
		sc, err := scenarios.Load(arg)
		if err != nil {
			return nil, badInput(err)
		}
		return sc, nil
	}
	sc, err := readScenarioFile(arg)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, badInput(fmt.Errorf("%q is neither a built-in scenario (%s) nor a file", arg, strings.Join(scenarios.Names(), ", ")))
	case err != nil:
		return nil, badInput(err)
	}
	return sc, nil
}
