package clock

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{
		"1.5s", "2", "2.5", "-1s", "0", "-0", "+0", "soon", "", "NaN", "Inf", "-Infinity",
		"1h2m3.5s", "300ms", "1e3", "1e300", " 1s", "1_000", "0x1p-2",
		"9223372036.854775807", "-9223372036.854775808", "9223372036.854775",
		"2562047h47m16.854775807s", "-2562047h47m16.854775808s", "2562047h47m16.854775808s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			if d != 0 {
				t.Errorf("ParseDuration(%q) = %v, %v, want 0 on error", s, d, err)
			}
			return
		}
		// A Go duration string means what time.ParseDuration says.
		if want, gerr := time.ParseDuration(s); gerr == nil && d != want {
			t.Errorf("ParseDuration(%q) = %v, want %v (time.ParseDuration)", s, d, want)
		}
		// A number of seconds keeps its sign: a huge one is an error,
		// never a wrapped-around duration.
		if secs, ferr := strconv.ParseFloat(s, 64); ferr == nil {
			if (secs > 0 && d < 0) || (secs < 0 && d > 0) {
				t.Errorf("ParseDuration(%q) = %v, want the sign of %v seconds", s, d, secs)
			}
		}
		// Whatever was accepted survives the wire encoding.
		b, err := json.Marshal(Duration(d))
		if err != nil {
			t.Fatalf("json.Marshal(%v) error = %v", d, err)
		}
		var back Duration
		if err := json.Unmarshal(b, &back); err != nil || back.D() != d {
			t.Errorf("json round trip of %v via %s = %v, %v, want %v, nil", d, b, back.D(), err, d)
		}
	})
}
