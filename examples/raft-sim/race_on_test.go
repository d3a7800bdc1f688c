//go:build race

package raftsim

// raceEnabled: the race detector slows a simulation about tenfold, so the
// day-long survival run is an hour under it (make test runs the day
// without it).
const raceEnabled = true
