package arena

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Grade is a letter grade for a score. The zero value means "no grade":
// nothing was measured, and arena never makes one up.
type Grade string

// Grades, best first. GradeNone is reported when no dimension was measured.
const (
	GradeAPlus Grade = "A+"
	GradeA     Grade = "A"
	GradeB     Grade = "B"
	GradeC     Grade = "C"
	GradeD     Grade = "D"
	GradeF     Grade = "F"
	GradeNone  Grade = ""
)

// gradeFloors are the inclusive lower bounds: a score of exactly 90 is an A.
var gradeFloors = []struct {
	grade Grade
	floor float64
}{{GradeAPlus, 95}, {GradeA, 90}, {GradeB, 80}, {GradeC, 70}, {GradeD, 60}, {GradeF, math.Inf(-1)}}

// gradeSlack absorbs floating-point error: a score that is 90 on paper
// (0.7 + 0.3×6/9 = 0.8999999999999999 in float64) is still an A.
const gradeSlack = 1e-9

// GradeFor returns the grade of a 0–100 score (boundaries inclusive).
func GradeFor(score float64) Grade {
	for _, g := range gradeFloors {
		if score >= g.floor-gradeSlack {
			return g.grade
		}
	}
	return GradeF // NaN
}

// ParseGrade reads "A+", "A", "B", "C", "D" or "F" (case-insensitive).
func ParseGrade(s string) (Grade, error) {
	for _, g := range gradeFloors {
		if strings.EqualFold(s, string(g.grade)) {
			return g.grade, nil
		}
	}
	return GradeNone, fmt.Errorf("unknown grade %s (want A+, A, B, C, D or F)", quoteValue(s))
}

func (g Grade) rank() int {
	i := slices.IndexFunc(gradeFloors, func(f struct {
		grade Grade
		floor float64
	}) bool {
		return f.grade == g
	})
	if g == GradeNone || i < 0 {
		return len(gradeFloors)
	}
	return i
}

// AtLeast reports whether g is min or better. No grade is never at least
// anything; any grade is at least GradeNone (no requirement).
func (g Grade) AtLeast(min Grade) bool {
	if g == GradeNone {
		return false
	}
	return g.rank() <= min.rank()
}

// String returns the letter, or "none".
func (g Grade) String() string {
	if g == GradeNone {
		return "none"
	}
	return string(g)
}

// MarshalText writes the letter, or "none" when there is no grade, so that
// readers of JSON and YAML never meet an empty string to interpret.
func (g Grade) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// UnmarshalText reads what MarshalText writes (and ParseGrade accepts).
func (g *Grade) UnmarshalText(b []byte) error {
	if string(b) == "none" || len(b) == 0 {
		*g = GradeNone
		return nil
	}
	v, err := ParseGrade(string(b))
	if err != nil {
		return err
	}
	*g = v
	return nil
}

// Weights of the three dimensions in the total.
type Weights struct {
	Availability float64 `json:"availability"`
	Recovery     float64 `json:"recovery"`
	Consistency  float64 `json:"consistency"`
}

// DefaultWeights are 0.4 / 0.3 / 0.3.
var DefaultWeights = Weights{Availability: 0.4, Recovery: 0.3, Consistency: 0.3}

// ScoreOptions tune the scoring formulas. The zero value means the defaults.
type ScoreOptions struct {
	Weights     Weights       // DefaultWeights when all zero
	SpeedTarget time.Duration // a TTR at or below it is full speed; default 1s
	SpeedLimit  time.Duration // a TTR at or above it is zero speed; default 10s
}

func (o ScoreOptions) withDefaults() ScoreOptions {
	if o.Weights == (Weights{}) {
		o.Weights = DefaultWeights
	}
	if o.SpeedTarget <= 0 {
		o.SpeedTarget = time.Second
	}
	if o.SpeedLimit <= o.SpeedTarget {
		o.SpeedLimit = max(10*time.Second, o.SpeedTarget+time.Second)
	}
	return o
}

// MaxWeight bounds a weight (of a score dimension, of a survival mix's
// type): sums of weights stay finite and exact enough.
const MaxWeight = 1e6

// Validate reports weights or limits out of range.
func (o ScoreOptions) Validate() error {
	w := o.Weights
	// The limit is compared with the effective target: one at or below the
	// default 1s target would otherwise be replaced by 10s silently.
	target := o.withDefaults().SpeedTarget
	inRange := func(x float64) bool { return x >= 0 && x <= MaxWeight }
	switch {
	case !inRange(w.Availability) || !inRange(w.Recovery) || !inRange(w.Consistency):
		return fmt.Errorf("weights: want weights from 0 to %g, got %+v", MaxWeight, w)
	case o.SpeedTarget < 0 || o.SpeedTarget > MaxObserveWindow:
		return fmt.Errorf("speed_target: %s is out of range (want %s)", o.SpeedTarget, rangeText(0, MaxObserveWindow))
	case o.SpeedLimit < 0 || o.SpeedLimit > MaxObserveWindow:
		return fmt.Errorf("speed_limit: %s is out of range (want %s)", o.SpeedLimit, rangeText(0, MaxObserveWindow))
	case o.SpeedLimit > 0 && o.SpeedLimit <= target:
		return fmt.Errorf("speed_limit: %s is not above speed_target %s", o.SpeedLimit, target)
	}
	return nil
}

// Dimension is one of the three scored dimensions. An unmeasured dimension
// (no probe samples, no landed fault, no check) has Measured false and is
// left out of the total.
type Dimension struct {
	Score    float64 `json:"score"`
	Measured bool    `json:"measured"`
	Weight   float64 `json:"weight"`
}

// Score is the scored outcome of a run.
type Score struct {
	Total        float64   `json:"total"`
	Grade        Grade     `json:"grade"`
	Measured     bool      `json:"measured"` // false: nothing measured, no total, no grade
	Availability Dimension `json:"availability"`
	Recovery     Dimension `json:"recovery"`
	Consistency  Dimension `json:"consistency"`
}

// Inputs are the raw counts a score is computed from.
type Inputs struct {
	Samples, HealthySamples int
	TTRs                    []time.Duration // one per landed fault, like Recovered (a missing one counts as unrecovered)
	Recovered               []bool
	Checks, PassedChecks    int
}

// ComputeScore applies these formulas:
//
//	A = 100 × healthy samples / samples
//	R = 100 × mean over landed faults of (0.7 × recovered + 0.3 × speed),
//	    speed = clamp((limit − TTR)/(limit − target), 0, 1), 0 for unrecovered faults
//	C = 100 × passed checks / checks
//	total = Σ wᵢ·dᵢ / Σ wᵢ over measured dimensions only
func ComputeScore(in Inputs, opts ScoreOptions) Score {
	o := opts.withDefaults()
	sum := 0.0
	for i, ok := range in.Recovered {
		if ok && i < len(in.TTRs) {
			sum += 0.7 + 0.3*speed(in.TTRs[i], o)
		}
	}
	return scoreFrom(in.Samples, in.HealthySamples, len(in.Recovered), sum, in.Checks, in.PassedChecks, o)
}

// scoreFrom computes a score from totals: decided faults and the sum of their
// per-fault recovery values (0.7·recovered + 0.3·speed).
func scoreFrom(samples, healthy, decided int, recoverySum float64, checks, passed int, opts ScoreOptions) Score {
	o := opts.withDefaults()
	s := Score{
		Availability: Dimension{Weight: o.Weights.Availability},
		Recovery:     Dimension{Weight: o.Weights.Recovery},
		Consistency:  Dimension{Weight: o.Weights.Consistency},
	}
	if samples > 0 {
		s.Availability.Measured = true
		s.Availability.Score = 100 * float64(healthy) / float64(samples)
	}
	if decided > 0 {
		s.Recovery.Measured = true
		s.Recovery.Score = 100 * recoverySum / float64(decided)
	}
	if checks > 0 {
		s.Consistency.Measured = true
		s.Consistency.Score = 100 * float64(passed) / float64(checks)
	}
	var num, den float64
	for _, d := range []Dimension{s.Availability, s.Recovery, s.Consistency} {
		if d.Measured && d.Weight > 0 {
			num += d.Weight * d.Score
			den += d.Weight
		}
	}
	if den > 0 {
		s.Measured = true
		s.Total = num / den
		s.Grade = GradeFor(s.Total)
	}
	return s
}

func speed(ttr time.Duration, o ScoreOptions) float64 {
	v := float64(o.SpeedLimit-ttr) / float64(o.SpeedLimit-o.SpeedTarget)
	return min(max(v, 0), 1)
}
