//go:build !race

package raftsim

const raceEnabled = false
