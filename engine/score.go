package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ares-arena/arena/internal/bound"
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
	return GradeNone, fmt.Errorf("unknown grade %s (want A+, A, B, C, D or F)", bound.Quote(s))
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

// DefaultWeights returns the weights of a score whose options give none:
// 0.4 / 0.3 / 0.3. A function, not a variable: a default that a program
// could change would change every score after it.
func DefaultWeights() Weights { return Weights{Availability: 0.4, Recovery: 0.3, Consistency: 0.3} }

// ScoreOptions tune the scoring formulas. The zero value means the defaults.
type ScoreOptions struct {
	Weights     Weights       // DefaultWeights when all zero
	SpeedTarget time.Duration // a TTR at or below it is full speed; default 1s
	SpeedLimit  time.Duration // a TTR at or above it is zero speed; default 10s
}

func (o ScoreOptions) withDefaults() ScoreOptions {
	if o.Weights == (Weights{}) {
		o.Weights = DefaultWeights()
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
		return fmt.Errorf("speed_target: %s is out of range (want %s)", o.SpeedTarget, bound.Range(0, MaxObserveWindow))
	case o.SpeedLimit < 0 || o.SpeedLimit > MaxObserveWindow:
		return fmt.Errorf("speed_limit: %s is out of range (want %s)", o.SpeedLimit, bound.Range(0, MaxObserveWindow))
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
//
// A run has no grade (Measured false, no total) when nothing was measured,
// or when it meant to land faults and none landed: a system that was never
// faulted has shown nothing of its resilience, however healthy it stayed.
// Ungraded then says why in one line. A run in which some of its faults
// landed keeps its grade (the others are injection errors, not scored), and
// one that planned no fault (a baseline) is graded on what was measured.
type Score struct {
	Total    float64 `json:"total"`
	Grade    Grade   `json:"grade"`
	Measured bool    `json:"measured"` // false: no total, no grade (Ungraded says why)
	// Ungraded says why the run has no grade: "nothing was measured", or
	// "none of the 3 planned faults landed (first: …)". Empty when graded.
	Ungraded string `json:"ungraded,omitempty"`
	// NoneLanded: the run meant to land faults and none landed. Unlike a run
	// with nothing measured, such a run fails its gate whatever the gate
	// asks (scenario.Gate.Check): it did not test what it set out to.
	NoneLanded   bool      `json:"none_landed,omitempty"`
	Availability Dimension `json:"availability"`
	Recovery     Dimension `json:"recovery"`
	Consistency  Dimension `json:"consistency"`
}

// UngradedReason says why s has no grade, "" when it has one. A Score made
// by hand with neither a grade nor a reason reads "nothing was measured".
func (s Score) UngradedReason() string {
	switch {
	case s.Measured:
		return ""
	case s.Ungraded != "":
		return s.Ungraded
	}
	return nothingMeasured
}

// nothingMeasured is why a run with no data in any dimension has no grade.
const nothingMeasured = "nothing was measured"

// AtLeast reports whether the score was measured and its total is at
// least min, with the slack GradeFor allows for floating-point error (a
// total that is 90 on paper meets a minimum of 90).
func (s Score) AtLeast(min float64) bool { return s.Measured && s.Total >= min-gradeSlack }

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
	} else {
		s.Ungraded = nothingMeasured
	}
	return s
}

func speed(ttr time.Duration, o ScoreOptions) float64 {
	v := float64(o.SpeedLimit-ttr) / float64(o.SpeedLimit-o.SpeedTarget)
	return min(max(v, 0), 1)
}
