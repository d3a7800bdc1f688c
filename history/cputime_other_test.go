//go:build !unix

package history_test

import "time"

// cpuTime is not measured on this system.
func cpuTime() time.Duration { return 0 }

// maxRSS is not measured on this system.
func maxRSS() int64 { return 0 }
