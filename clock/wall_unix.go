//go:build unix

package clock

import (
	"syscall"
	"time"
)

// Wall reads the kernel's clock with a system call: in a
// testing/synctest bubble, where time.Now is fake and stands still while
// code computes, it still tells the wall time, so a report's WallTime is
// the run's real duration and a check's time budget (package history)
// runs out. (gettimeofday's microseconds are plenty for either.)
func Wall() time.Time {
	var tv syscall.Timeval
	if err := syscall.Gettimeofday(&tv); err != nil {
		return time.Now()
	}
	return time.Unix(int64(tv.Sec), int64(tv.Usec)*1000)
}
