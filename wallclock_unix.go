//go:build unix

package arena

import (
	"syscall"
	"time"
)

// wallNow reads the kernel's clock with a system call: in a
// testing/synctest bubble, where time.Now is fake, it still tells the
// wall time, so a report's WallTime is the run's real duration.
// (gettimeofday's microseconds are plenty for a run's wall time.)
func wallNow() time.Time {
	var tv syscall.Timeval
	if err := syscall.Gettimeofday(&tv); err != nil {
		return time.Now()
	}
	return time.Unix(int64(tv.Sec), int64(tv.Usec)*1000)
}
