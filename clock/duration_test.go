package clock

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// notADuration is the text of ParseDuration's error for an unparsable string.
const notADuration = ` is not a duration (want a Go duration such as "1.5s" or a number of seconds)`

func TestDurationMarshalJSON(t *testing.T) {
	tests := []struct {
		d    Duration
		want string
	}{
		{Duration(1500 * time.Millisecond), `"1.5s"`},
		{0, `"0s"`},
		{Duration(250 * time.Millisecond), `"250ms"`},
		{Duration(90 * time.Minute), `"1h30m0s"`},
		{Duration(-time.Second), `"-1s"`},
		{Duration(time.Nanosecond), `"1ns"`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.d)
		if err != nil || string(got) != tt.want {
			t.Errorf("json.Marshal(%v) = %s, %v, want %s, nil", time.Duration(tt.d), got, err, tt.want)
		}
	}
	// Inside a struct, by value and by pointer.
	d := Duration(2 * time.Second)
	got, err := json.Marshal(struct {
		V Duration  `json:"v"`
		P *Duration `json:"p"`
	}{d, &d})
	if want := `{"v":"2s","p":"2s"}`; err != nil || string(got) != want {
		t.Errorf("json.Marshal(struct) = %s, %v, want %s, nil", got, err, want)
	}
}

func TestDurationUnmarshalJSON(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{`"1.5s"`, 1500 * time.Millisecond},
		{`"250ms"`, 250 * time.Millisecond},
		{`"1h2m3s"`, time.Hour + 2*time.Minute + 3*time.Second},
		{`2`, 2 * time.Second},
		{`2.5`, 2500 * time.Millisecond},
		{`"3"`, 3 * time.Second}, // a string holding a number is seconds too
		{`"0.5"`, 500 * time.Millisecond},
		{`0`, 0},
		{`"0"`, 0},
		{`1e-3`, time.Millisecond},
		{`-1`, -time.Second}, // negatives are the caller's to reject
		{`"-1.5s"`, -1500 * time.Millisecond},
	}
	for _, tt := range tests {
		var got Duration
		if err := json.Unmarshal([]byte(tt.in), &got); err != nil || got.D() != tt.want {
			t.Errorf("json.Unmarshal(%s) = %v, %v, want %v, nil", tt.in, got.D(), err, tt.want)
		}
	}
}

func TestDurationUnmarshalJSONErrors(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string // a substring of the error
	}{
		{`"soon"`, `"soon"` + notADuration},
		{`""`, `""` + notADuration},
		{`"1.5 s"`, `"1.5 s"` + notADuration},
		{`true`, "true (bool) is not a duration"},
		{`null`, "missing duration"},
		{`{}`, "is not a duration"},
		{`[1]`, "is not a duration"},
		{`"NaN"`, "NaN seconds is out of range"},
		{`"Inf"`, "+Inf seconds is out of range"},
		{`1e300`, "1e+300 seconds is out of range"},
		{`-1e300`, "-1e+300 seconds is out of range"},
		{`1e400`, "1e400"}, // not even a float64
		{`"9223372036.854775807"`, "seconds is out of range"},
		{`9223372036.854775807`, "seconds is out of range"},
		{`"999999999999h"`, "not a duration"},
	}
	for _, tt := range tests {
		d := Duration(7 * time.Millisecond)
		err := json.Unmarshal([]byte(tt.in), &d)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("json.Unmarshal(%s) error = %v, want one containing %q", tt.in, err, tt.wantErr)
		}
		if d != Duration(7*time.Millisecond) {
			t.Errorf("json.Unmarshal(%s) changed the value to %v on error, want it unchanged", tt.in, d)
		}
	}
	// In a struct, a null field is an error too (not silently zero).
	var s struct {
		Delay Duration `json:"delay"`
	}
	if err := json.Unmarshal([]byte(`{"delay":null}`), &s); err == nil {
		t.Errorf(`json.Unmarshal({"delay":null}) = nil, want an error`)
	}
}

func TestDurationJSONRoundTrip(t *testing.T) {
	for _, d := range []time.Duration{
		0, 1, 999, 1500 * time.Millisecond, 3*time.Hour + 7*time.Nanosecond, -42 * time.Second,
		math.MaxInt64, math.MinInt64 + 1,
	} {
		b, err := json.Marshal(Duration(d))
		if err != nil {
			t.Fatalf("json.Marshal(%v) error = %v", d, err)
		}
		var got Duration
		if err := json.Unmarshal(b, &got); err != nil || got.D() != d {
			t.Errorf("json.Unmarshal(%s) = %v, %v, want %v, nil", b, got.D(), err, d)
		}
	}
}

type yamlDelay struct {
	Delay Duration `yaml:"delay"`
}

func TestDurationYAML(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"delay: 2\n", 2 * time.Second},
		{"delay: 1.5s\n", 1500 * time.Millisecond},
		{"delay: 1.5\n", 1500 * time.Millisecond},
		{"delay: \"3\"\n", 3 * time.Second},
		{"delay: '250ms'\n", 250 * time.Millisecond},
		{"delay: 1m30s\n", 90 * time.Second},
		{"delay: 0\n", 0},
		{"delay: -2\n", -2 * time.Second},
	}
	for _, tt := range tests {
		var got yamlDelay
		if err := yaml.Unmarshal([]byte(tt.in), &got); err != nil || got.Delay.D() != tt.want {
			t.Errorf("yaml.Unmarshal(%q) = %v, %v, want %v, nil", tt.in, got.Delay.D(), err, tt.want)
		}
	}

	errs := []struct {
		in      string
		wantErr string
	}{
		{"delay: soon\n", `"soon"` + notADuration},
		{"delay: true\n", "true (bool) is not a duration"},
		{"delay: [1]\n", "is not a duration"},
		{"delay: {a: 1}\n", "is not a duration"},
		{"delay: .inf\n", "+Inf seconds is out of range"},
		{"delay: .nan\n", "NaN seconds is out of range"},
		{"delay: 1e300\n", "1e+300 seconds is out of range"},
	}
	for _, tt := range errs {
		got := yamlDelay{Delay: Duration(7 * time.Millisecond)}
		err := yaml.Unmarshal([]byte(tt.in), &got)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("yaml.Unmarshal(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
		}
		if got.Delay != Duration(7*time.Millisecond) {
			t.Errorf("yaml.Unmarshal(%q) changed the value to %v on error, want it unchanged", tt.in, got.Delay)
		}
	}

	// Unlike encoding/json, yaml.v3 never calls UnmarshalYAML for a null
	// value: the field is left as it was, without an error. Pinned so that a
	// change in that (the library's) behaviour is noticed.
	for _, in := range []string{"delay: ~\n", "delay: null\n", "delay:\n"} {
		got := yamlDelay{Delay: Duration(7 * time.Millisecond)}
		if err := yaml.Unmarshal([]byte(in), &got); err != nil || got.Delay != Duration(7*time.Millisecond) {
			t.Errorf("yaml.Unmarshal(%q) = %v, %v, want 7ms (unchanged), nil", in, got.Delay, err)
		}
	}

	out, err := yaml.Marshal(yamlDelay{Delay: Duration(1500 * time.Millisecond)})
	if want := "delay: 1.5s\n"; err != nil || string(out) != want {
		t.Errorf("yaml.Marshal(1.5s) = %q, %v, want %q, nil", out, err, want)
	}
	// Round trip through YAML.
	for _, d := range []time.Duration{0, time.Nanosecond, 1500 * time.Millisecond, 26 * time.Hour, -time.Minute} {
		out, err := yaml.Marshal(yamlDelay{Delay: Duration(d)})
		if err != nil {
			t.Fatalf("yaml.Marshal(%v) error = %v", d, err)
		}
		var got yamlDelay
		if err := yaml.Unmarshal(out, &got); err != nil || got.Delay.D() != d {
			t.Errorf("yaml.Unmarshal(%q) = %v, %v, want %v, nil", out, got.Delay.D(), err, d)
		}
	}
}

func TestDurationAccessors(t *testing.T) {
	d := Duration(1500 * time.Millisecond)
	if got, want := d.D(), 1500*time.Millisecond; got != want {
		t.Errorf("Duration(1.5s).D() = %v, want %v", got, want)
	}
	if got, want := d.String(), "1.5s"; got != want {
		t.Errorf("Duration(1.5s).String() = %q, want %q", got, want)
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   any
		want time.Duration
	}{
		{2, 2 * time.Second},
		{-3, -3 * time.Second},
		{int64(3), 3 * time.Second},
		{uint64(4), 4 * time.Second},
		{1.5, 1500 * time.Millisecond},
		{0.0, 0},
		{1.5e-9, 2 * time.Nanosecond}, // rounded to the nearest nanosecond, halves away from zero
		{1.4e-9, time.Nanosecond},
		{-1.5e-9, -2 * time.Nanosecond},
		{json.Number("2.5"), 2500 * time.Millisecond},
		{json.Number("7"), 7 * time.Second},
		{7 * time.Millisecond, 7 * time.Millisecond},
		{-7 * time.Millisecond, -7 * time.Millisecond},
		{Duration(8 * time.Millisecond), 8 * time.Millisecond},
		{time.Duration(math.MaxInt64), math.MaxInt64},
		{"1.5s", 1500 * time.Millisecond},
		{"1h2m", time.Hour + 2*time.Minute},
		{"-1s", -time.Second},
		{"3", 3 * time.Second},
		{"0", 0},
		{"9223372036", 9223372036 * time.Second}, // the largest whole number of seconds that fits
		{-9223372036.854775808, math.MinInt64},   // exactly -2⁶³ ns fits
		{9223372036.854775, 9223372036854774784}, // just below 2⁶³ ns after rounding
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseDuration(%#v) = %v, %v, want %v, nil", tt.in, got, err, tt.want)
		}
	}
}

func TestParseDurationErrors(t *testing.T) {
	tests := []struct {
		in      any
		wantErr string // the whole error text
	}{
		{nil, "missing duration"},
		{true, "true (bool) is not a duration"},
		{"soon", `"soon"` + notADuration},
		{"", `""` + notADuration},
		{json.Number("abc"), `"abc" is not a duration`},
		{math.NaN(), "NaN seconds is out of range"},
		{math.Inf(1), "+Inf seconds is out of range"},
		{math.Inf(-1), "-Inf seconds is out of range"},
		{"NaN", "NaN seconds is out of range"},
		{"-Inf", "-Inf seconds is out of range"},
		{1e10, "1e+10 seconds is out of range"},
		{-1e10, "-1e+10 seconds is out of range"},
		{math.MaxFloat64, "1.7976931348623157e+308 seconds is out of range"},
		{json.Number("1e20"), "1e+20 seconds is out of range"},
		{uint64(math.MaxUint64), "1.8446744073709552e+19 seconds is out of range"},
		{int64(math.MaxInt64), "9.223372036854776e+18 seconds is out of range"},
		// Just below MaxInt64/1e9 seconds: the nanoseconds round up to 2⁶³,
		// which does not fit an int64 and must not wrap to a negative.
		{math.MaxInt64 / 1e9, "9.223372036854776e+09 seconds is out of range"},
		{"9223372036.854775807", "9.223372036854776e+09 seconds is out of range"},
		{[]int{1}, "[1] ([]int) is not a duration"},
		{map[string]any{}, "map[] (map[string]interface {}) is not a duration"},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if err == nil {
			t.Errorf("ParseDuration(%#v) = %v, nil, want error %q", tt.in, got, tt.wantErr)
			continue
		}
		if err.Error() != tt.wantErr {
			t.Errorf("ParseDuration(%#v) error = %q, want %q", tt.in, err, tt.wantErr)
		}
		if got != 0 {
			t.Errorf("ParseDuration(%#v) = %v on error, want 0", tt.in, got)
		}
	}
}
