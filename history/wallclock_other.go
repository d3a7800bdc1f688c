//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package history

import "time"

// wallNow reads the wall clock, in nanoseconds. On this system it is
// time.Now: inside a testing/synctest bubble it reads the bubble's clock,
// which stands still while a check computes, so there a check's budget
// does not hold.
func wallNow() int64 { return time.Now().UnixNano() }
