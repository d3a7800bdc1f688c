//go:build !race

package history

// raceEnabled says whether the race detector is on: it changes what is
// allocated.
const raceEnabled = false
