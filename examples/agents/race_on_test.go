//go:build race

package agents

// raceEnabled: the race detector slows the planted bugs' shrinking about
// fivefold (each runs in a test binary of its own); make test runs them
// without it.
const raceEnabled = true
