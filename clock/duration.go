package clock

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ares-arena/arena/internal/bound"
)

// Duration is a time.Duration with arena's one wire encoding: a Go duration
// string ("1.5s") in YAML, JSON, HTTP, events and reports. Decoders also accept
// a bare number, read as seconds, because people write `delay: 2`.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats d like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON encodes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON accepts a duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	got, err := ParseDuration(v)
	if err != nil {
		return err
	}
	*d = Duration(got)
	return nil
}

// MarshalYAML encodes d as a duration string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML accepts a duration string or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var v any
	if err := n.Decode(&v); err != nil {
		return err
	}
	got, err := ParseDuration(v)
	if err != nil {
		return err
	}
	*d = Duration(got)
	return nil
}

// ParseDuration reads a duration in arena's encoding from a decoded value: a
// Go duration string, a time.Duration, a Duration, or a number of seconds.
// Negative durations are returned as they are; callers decide if they are
// allowed (they never are in actions and scenarios).
func ParseDuration(v any) (time.Duration, error) {
	switch x := v.(type) {
	case string:
		// A Go duration first: it is the common form, and no string is
		// both a Go duration and a float other than "0" (zero either way),
		// so the order changes no result, only what a miss costs.
		if d, err := time.ParseDuration(x); err == nil {
			return d, nil
		}
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return bound.Seconds(f)
		}
		return 0, fmt.Errorf("%s is not a duration (want a Go duration such as \"1.5s\" or a number of seconds)", bound.Quote(x))
	case time.Duration:
		return x, nil
	case Duration:
		return time.Duration(x), nil
	case int:
		return bound.Seconds(float64(x))
	case int64:
		return bound.Seconds(float64(x))
	case uint64:
		return bound.Seconds(float64(x))
	case float64:
		return bound.Seconds(x)
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return 0, fmt.Errorf("%s is not a duration", bound.Quote(x.String()))
		}
		return bound.Seconds(f)
	case nil:
		return 0, fmt.Errorf("missing duration")
	default:
		return 0, fmt.Errorf("%v (%T) is not a duration", v, v)
	}
}
