//go:build !unix

package clock

import "time"

// Wall is time.Now where no system call reads the kernel's clock
// without going through it: a bubble's fake time there is told by its
// epoch (2000-01-01) instead, and a report's WallTime inside a bubble is
// the simulated duration.
func Wall() time.Time {
	if t := time.Now(); t.Before(bubbleEpochEnd) {
		return time.Time{} // in a bubble: not the wall time
	}
	return time.Now()
}

// bubbleEpochEnd: a time.Now before it is a bubble's (which starts at
// 2000-01-01), not the wall clock's.
var bubbleEpochEnd = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
