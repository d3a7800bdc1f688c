package bound

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// FormatDuration prints whole hours and minutes without trailing zero units.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if d >= time.Minute && d%time.Minute == 0 {
		s = strings.TrimSuffix(s, "0s")
	}
	if d >= time.Hour && d%time.Hour == 0 {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// AddSat adds non-negative durations without wrapping around.
func AddSat(a, b time.Duration) time.Duration {
	if s := a + b; s >= a || b < 0 {
		return s
	}
	return time.Duration(1<<63 - 1)
}

// Seconds converts f seconds to a duration, or says it is out of range
// (NaN included). It checks the rounded nanoseconds, not f: seconds just
// below MaxInt64/1e9 round up to 2⁶³, which does not fit and would wrap to
// a negative duration; -2⁶³ itself fits.
func Seconds(f float64) (time.Duration, error) {
	ns := math.Round(f * float64(time.Second))
	if !(ns >= -(1<<63) && ns < 1<<63) {
		return 0, fmt.Errorf("%v seconds is out of range", f)
	}
	return time.Duration(ns), nil
}
