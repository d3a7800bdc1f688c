package main

import (
	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/scenarios"
)

// loadScenario resolves a scenario argument, a built-in name or a file path
// (scenarios.Resolve). Every failure is bad input.
func loadScenario(arg string) (*arena.Scenario, error) {
	sc, err := scenarios.Resolve(arg)
	if err != nil {
		return nil, badInput(err)
	}
	return sc, nil
}
