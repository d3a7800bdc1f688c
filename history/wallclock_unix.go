//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package history

import (
	"syscall"
	"time"
)

// wallNow reads the system's wall clock, in nanoseconds. Not time.Now: in a
// testing/synctest bubble time.Now is the bubble's clock, which does not
// move while a check computes, and a budget read from it would never run
// out.
func wallNow() int64 {
	var tv syscall.Timeval
	if err := syscall.Gettimeofday(&tv); err != nil {
		return time.Now().UnixNano()
	}
	return tv.Nano()
}
