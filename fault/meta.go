package fault

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/internal/bound"
)

// MetaKind is the type of a metadata value.
type MetaKind string

// Metadata kinds and the Go type of their decoded value in Params.Values.
const (
	MetaKindDuration MetaKind = "duration" // time.Duration; written "1.5s" or a number of seconds; never negative
	MetaKindString   MetaKind = "string"   // string
	MetaKindNumber   MetaKind = "number"   // float64; finite, never negative
)

// MetaKey is one metadata key of a fault type.
type MetaKey struct {
	Name     string
	Kind     MetaKind
	Doc      string   // one sentence, for the JSON Schema
	Default  any      // the decoded value when the key is left out (nil: absent)
	Enum     []string // MetaKindString: the accepted values (survival draws among them)
	Positive bool     // MetaKindDuration, MetaKindNumber: zero is refused too
	// Min and Max bound a MetaKindDuration value (a time.Duration) or a
	// MetaKindNumber value (a float64), both included. A nil Min is 0 (or
	// just above it with Positive); a nil Max is the kind's limit,
	// MaxMetaDuration or MaxMetaNumber, and no Max may exceed it. Every key
	// has a range: validation refuses a value outside it with an error that
	// names the range, and the schema and the README's table show it.
	Min, Max any
	// MaxLen bounds a MetaKindString value, in bytes (0: MaxMetaString).
	MaxLen int
	// Check validates the decoded value further; its error is reported
	// against metadata.<Name>.
	Check func(v any) error
}

// The limits of metadata values whose key sets no tighter one.
const (
	// MaxMetaDuration is the longest duration a metadata key accepts: a
	// fault's lifetime, connection_reset's after. Longer chaos is what
	// survival mode is for.
	MaxMetaDuration = 24 * time.Hour
	// MaxMetaNumber is the largest number a metadata key accepts: 2^53,
	// below which every whole number is exact in a float64.
	MaxMetaNumber = 1 << 53
	// MaxMetaString bounds a string metadata value, in bytes.
	MaxMetaString = 1024
)

// Range returns the smallest and the largest value k accepts, of its
// kind's Go type (time.Duration, float64); nil for a MetaKindString. With
// Positive and no Min, the smallest duration is 1ns and the smallest number
// the smallest positive float64.
func (k MetaKey) Range() (lo, hi any) {
	switch k.Kind {
	case MetaKindDuration:
		return k.durationRange()
	case MetaKindNumber:
		return k.numberRange()
	}
	return nil, nil
}

// durationRange and numberRange are Range for one kind, unboxed: decode
// checks every value an action carries against them.
func (k MetaKey) durationRange() (lo, hi time.Duration) {
	lo, hi = 0, time.Duration(MaxMetaDuration)
	if d, ok := k.Min.(time.Duration); ok {
		lo = d
	} else if k.Positive {
		lo = time.Nanosecond
	}
	if d, ok := k.Max.(time.Duration); ok {
		hi = d
	}
	return lo, hi
}

func (k MetaKey) numberRange() (lo, hi float64) {
	lo, hi = 0.0, float64(MaxMetaNumber)
	if f, ok := k.Min.(float64); ok {
		lo = f
	} else if k.Positive {
		lo = math.SmallestNonzeroFloat64
	}
	if f, ok := k.Max.(float64); ok {
		hi = f
	}
	return lo, hi
}

// RangeText describes the values the key accepts, for messages and docs:
// "0 to 24h", "1 to 1000000000".
func (k MetaKey) RangeText() string {
	lo, hi := k.Range()
	switch k.Kind {
	case MetaKindDuration:
		return bound.Range(lo.(time.Duration), hi.(time.Duration))
	case MetaKindNumber:
		if k.Positive && k.Min == nil {
			return "more than 0, at most " + formatNumber(hi.(float64))
		}
		return formatNumber(lo.(float64)) + " to " + formatNumber(hi.(float64))
	}
	if len(k.Enum) > 0 {
		return "one of " + strings.Join(k.Enum, ", ")
	}
	return fmt.Sprintf("at most %d bytes", k.maxLen())
}

func (k MetaKey) maxLen() int {
	if k.MaxLen > 0 {
		return k.MaxLen
	}
	return MaxMetaString
}

// formatNumber prints whole numbers in full and others as %g.
func formatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// checkRange checks that Min and Max are of the kind's type and in order,
// and that Max is within the kind's limit.
func (k MetaKey) checkRange() error {
	switch k.Kind {
	case MetaKindDuration:
		for _, b := range []struct {
			name string
			v    any
		}{{"Min", k.Min}, {"Max", k.Max}} {
			if d, ok := b.v.(time.Duration); b.v != nil && (!ok || d < 0 || d > MaxMetaDuration) {
				return fmt.Errorf("%s: want a time.Duration from 0 to %s, got %v (%T)", b.name, bound.FormatDuration(MaxMetaDuration), b.v, b.v)
			}
		}
	case MetaKindNumber:
		for _, b := range []struct {
			name string
			v    any
		}{{"Min", k.Min}, {"Max", k.Max}} {
			if f, ok := b.v.(float64); b.v != nil && (!ok || !(f >= 0 && f <= MaxMetaNumber)) {
				return fmt.Errorf("%s: want a float64 from 0 to 2^53, got %v (%T)", b.name, b.v, b.v)
			}
		}
	default:
		if k.Min != nil || k.Max != nil {
			return errors.New("Min, Max: only for MetaKindDuration and MetaKindNumber")
		}
		return nil
	}
	lo, hi := k.Range()
	less := func(a, b any) bool {
		if d, ok := a.(time.Duration); ok {
			return d < b.(time.Duration)
		}
		return a.(float64) < b.(float64)
	}
	if less(hi, lo) {
		return fmt.Errorf("Max: below the smallest value accepted (%v)", lo)
	}
	return nil
}

// decode checks one metadata value and returns it decoded.
func (k MetaKey) decode(v any) (any, error) {
	var out any
	switch k.Kind {
	case MetaKindDuration:
		d, err := clock.ParseDuration(v)
		if err != nil {
			return nil, err
		}
		lo, hi := k.durationRange()
		switch {
		case d < 0:
			return nil, fmt.Errorf("negative duration %s (want %s)", d, k.RangeText())
		case d == 0 && k.Positive:
			return nil, fmt.Errorf("must be positive (want %s)", k.RangeText())
		case d < lo || d > hi:
			return nil, fmt.Errorf("%s is out of range (want %s)", bound.FormatDuration(d), k.RangeText())
		}
		out = d
	case MetaKindString:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a string, got %T", v)
		}
		if len(k.Enum) > 0 && !slices.Contains(k.Enum, s) {
			return nil, fmt.Errorf("unknown %s %s (want one of %s)", strings.ReplaceAll(k.Name, "_", " "), bound.Quote(s), strings.Join(k.Enum, ", "))
		}
		if len(s) > k.maxLen() {
			return nil, fmt.Errorf("%d bytes, longer than %d", len(s), k.maxLen())
		}
		out = s
	case MetaKindNumber:
		var f float64
		switch n := v.(type) {
		case int:
			f = float64(n)
		case int64:
			f = float64(n)
		case float64:
			f = n
		default:
			return nil, fmt.Errorf("want a number, got %T", v)
		}
		lo, hi := k.numberRange()
		switch {
		case f != f || f > 1e300 || f < -1e300:
			return nil, fmt.Errorf("%v is not a finite number (want %s)", f, k.RangeText())
		case f < 0:
			return nil, fmt.Errorf("negative number %v (want %s)", f, k.RangeText())
		case f == 0 && k.Positive:
			return nil, fmt.Errorf("must be positive (want %s)", k.RangeText())
		case f < lo || f > hi:
			return nil, fmt.Errorf("%s is out of range (want %s)", formatNumber(f), k.RangeText())
		}
		out = f
	}
	if k.Check != nil {
		if err := k.Check(out); err != nil {
			return nil, err
		}
	}
	return out, nil
}
