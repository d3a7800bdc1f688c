package engine

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// realGrades are the grades, best first.
var realGrades = []Grade{GradeAPlus, GradeA, GradeB, GradeC, GradeD, GradeF}

func TestGradeFor(t *testing.T) {
	tests := []struct {
		score float64
		want  Grade
	}{
		{100, GradeAPlus},
		{150, GradeAPlus},
		{95, GradeAPlus},
		{94.999, GradeA},
		{95 - 1e-6, GradeA},
		{math.Nextafter(95, 0), GradeAPlus}, // float error at a boundary is absorbed
		{89.99999999999999, GradeA},         // 100 × (0.7 + 0.3×6/9) in float64
		{math.Nextafter(60, 0), GradeD},
		{90, GradeA},
		{89.99, GradeB},
		{80, GradeB},
		{79.999, GradeC},
		{70, GradeC},
		{69.999, GradeD},
		{60, GradeD},
		{59.9, GradeF},
		{0, GradeF},
		{-1, GradeF},
		{math.Inf(-1), GradeF},
		{math.Inf(1), GradeAPlus},
		{math.NaN(), GradeF},
	}
	for _, tt := range tests {
		if got := GradeFor(tt.score); got != tt.want {
			t.Errorf("GradeFor(%v) = %q, want %q", tt.score, got, tt.want)
		}
	}
}

func TestParseGrade(t *testing.T) {
	tests := []struct {
		in   string
		want Grade
	}{
		{"A+", GradeAPlus}, {"a+", GradeAPlus},
		{"A", GradeA}, {"a", GradeA},
		{"B", GradeB}, {"b", GradeB},
		{"C", GradeC}, {"c", GradeC},
		{"D", GradeD}, {"d", GradeD},
		{"F", GradeF}, {"f", GradeF},
	}
	for _, tt := range tests {
		got, err := ParseGrade(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseGrade(%q) = %q, %v, want %q, nil", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"E", "", "none", "A-", "AA", "A++", " A", "A ", "+A", "a +", "Aplus"} {
		got, err := ParseGrade(in)
		if err == nil {
			t.Errorf("ParseGrade(%q) = %q, nil, want an error", in, got)
			continue
		}
		if got != GradeNone {
			t.Errorf("ParseGrade(%q) = %q on error, want GradeNone", in, got)
		}
		if want := "unknown grade " + strconv.Quote(in) + " (want A+, A, B, C, D or F)"; err.Error() != want {
			t.Errorf("ParseGrade(%q) error = %q, want %q", in, err, want)
		}
	}
	// String and ParseGrade round trip for every real grade.
	for _, g := range realGrades {
		if got, err := ParseGrade(g.String()); err != nil || got != g {
			t.Errorf("ParseGrade(%q) = %q, %v, want %q, nil", g.String(), got, err, g)
		}
	}
}

func TestGradeString(t *testing.T) {
	tests := []struct {
		g    Grade
		want string
	}{
		{GradeNone, "none"}, {GradeAPlus, "A+"}, {GradeA, "A"}, {GradeF, "F"},
	}
	for _, tt := range tests {
		if got := tt.g.String(); got != tt.want {
			t.Errorf("Grade(%q).String() = %q, want %q", string(tt.g), got, tt.want)
		}
	}
}

func TestGradeAtLeast(t *testing.T) {
	// realGrades is best first, so g is at least min exactly when it comes
	// no later in the list.
	for i, g := range realGrades {
		for j, min := range realGrades {
			if got, want := g.AtLeast(min), i <= j; got != want {
				t.Errorf("%q.AtLeast(%q) = %v, want %v", g, min, got, want)
			}
		}
	}
	// No grade is never at least anything, not even no grade.
	for _, min := range append(realGrades, GradeNone) {
		if GradeNone.AtLeast(min) {
			t.Errorf("GradeNone.AtLeast(%q) = true, want false", min)
		}
	}
	// A grade that is not one of the six is not at least any real grade.
	for _, min := range realGrades {
		if Grade("E").AtLeast(min) {
			t.Errorf(`Grade("E").AtLeast(%q) = true, want false`, min)
		}
	}
}

// approx compares scores computed in floating point.
var approx = cmpopts.EquateApprox(0, 1e-9)

func TestComputeScoreAvailabilityOnly(t *testing.T) {
	got := ComputeScore(Inputs{Samples: 10, HealthySamples: 7}, ScoreOptions{})
	want := Score{
		Total:        70,
		Grade:        GradeC,
		Measured:     true,
		Availability: Dimension{Score: 70, Measured: true, Weight: 0.4},
		Recovery:     Dimension{Weight: 0.3},
		Consistency:  Dimension{Weight: 0.3},
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("ComputeScore(7 of 10 healthy) mismatch (-want +got):\n%s", diff)
	}
}

func TestComputeScoreRecovery(t *testing.T) {
	tests := []struct {
		name      string
		ttrs      []time.Duration
		recovered []bool
		want      float64
	}{
		{"ttr 0", []time.Duration{0}, []bool{true}, 100},
		{"ttr below target", []time.Duration{500 * time.Millisecond}, []bool{true}, 100},
		{"ttr at target", []time.Duration{time.Second}, []bool{true}, 100},
		{"ttr at limit", []time.Duration{10 * time.Second}, []bool{true}, 70},
		{"ttr beyond limit", []time.Duration{25 * time.Second}, []bool{true}, 70},
		{"ttr halfway", []time.Duration{5500 * time.Millisecond}, []bool{true}, 85}, // 70 + 30 × 4.5/9
		{"ttr 4s", []time.Duration{4 * time.Second}, []bool{true}, 90},              // 70 + 30 × 6/9
		{"unrecovered", []time.Duration{0}, []bool{false}, 0},
		{"unrecovered ignores its ttr", []time.Duration{time.Second}, []bool{false}, 0},
		{
			"mean over faults",
			[]time.Duration{0, 10 * time.Second, 0, 5500 * time.Millisecond},
			[]bool{true, true, false, true},
			(100 + 70 + 0 + 85) / 4.0, // 63.75
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ComputeScore(Inputs{TTRs: tt.ttrs, Recovered: tt.recovered}, ScoreOptions{})
			want := Score{
				Total:        tt.want,
				Grade:        GradeFor(tt.want),
				Measured:     true,
				Availability: Dimension{Weight: 0.4},
				Recovery:     Dimension{Score: tt.want, Measured: true, Weight: 0.3},
				Consistency:  Dimension{Weight: 0.3},
			}
			if diff := cmp.Diff(want, got, approx); diff != "" {
				t.Errorf("ComputeScore(ttrs %v, recovered %v) mismatch (-want +got):\n%s", tt.ttrs, tt.recovered, diff)
			}
		})
	}
}

func TestComputeScoreConsistencyOnly(t *testing.T) {
	got := ComputeScore(Inputs{Checks: 4, PassedChecks: 3}, ScoreOptions{})
	want := Score{
		Total:        75,
		Grade:        GradeC,
		Measured:     true,
		Availability: Dimension{Weight: 0.4},
		Recovery:     Dimension{Weight: 0.3},
		Consistency:  Dimension{Score: 75, Measured: true, Weight: 0.3},
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("ComputeScore(3 of 4 checks) mismatch (-want +got):\n%s", diff)
	}
}

func TestComputeScoreAllDimensions(t *testing.T) {
	in := Inputs{
		Samples: 10, HealthySamples: 7, // A = 70
		TTRs:      []time.Duration{5500 * time.Millisecond}, // R = 85
		Recovered: []bool{true},
		Checks:    4, PassedChecks: 3, // C = 75
	}
	got := ComputeScore(in, ScoreOptions{})
	// (0.4×70 + 0.3×85 + 0.3×75) / (0.4+0.3+0.3) = 28 + 25.5 + 22.5 = 76
	if math.Abs(got.Total-76) > 1e-9 {
		t.Errorf("ComputeScore(%+v).Total = %v, want 76", in, got.Total)
	}
	want := Score{
		Total:        76,
		Grade:        GradeC,
		Measured:     true,
		Availability: Dimension{Score: 70, Measured: true, Weight: 0.4},
		Recovery:     Dimension{Score: 85, Measured: true, Weight: 0.3},
		Consistency:  Dimension{Score: 75, Measured: true, Weight: 0.3},
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("ComputeScore(%+v) mismatch (-want +got):\n%s", in, diff)
	}

	// Two dimensions: the unmeasured one leaves the mean, it does not count as 0.
	in = Inputs{Samples: 4, HealthySamples: 4, Checks: 2, PassedChecks: 1} // A = 100, C = 50
	got = ComputeScore(in, ScoreOptions{})
	// (0.4×100 + 0.3×50) / 0.7 = 55 / 0.7 = 78.57…
	if wantTotal := 55 / 0.7; math.Abs(got.Total-wantTotal) > 1e-9 || got.Grade != GradeC {
		t.Errorf("ComputeScore(%+v) = %v %q, want %v %q", in, got.Total, got.Grade, wantTotal, GradeC)
	}
}

func TestComputeScoreNothingMeasured(t *testing.T) {
	for _, in := range []Inputs{
		{},
		{HealthySamples: 3},        // no samples
		{PassedChecks: 1},          // no checks
		{TTRs: []time.Duration{0}}, // a TTR without a verdict
	} {
		got := ComputeScore(in, ScoreOptions{})
		want := Score{
			Ungraded:     "nothing was measured",
			Availability: Dimension{Weight: 0.4},
			Recovery:     Dimension{Weight: 0.3},
			Consistency:  Dimension{Weight: 0.3},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ComputeScore(%+v) mismatch (-want +got):\n%s", in, diff)
		}
		if got.Grade != GradeNone || got.Grade.String() != "none" {
			t.Errorf("ComputeScore(%+v).Grade = %q, want none", in, got.Grade)
		}
	}
}

func TestComputeScoreWeights(t *testing.T) {
	in := Inputs{
		Samples: 2, HealthySamples: 1, // A = 50
		TTRs: []time.Duration{0}, Recovered: []bool{false}, // R = 0
		Checks: 1, PassedChecks: 1, // C = 100
	}
	tests := []struct {
		name      string
		weights   Weights
		in        Inputs
		wantTotal float64
		measured  bool
	}{
		{"zero recovery weight is left out", Weights{Availability: 1, Consistency: 3}, in, (50 + 300) / 4.0, true},
		{"only recovery", Weights{Recovery: 2}, in, 0, true},
		{"equal weights", Weights{Availability: 1, Recovery: 1, Consistency: 1}, in, 50, true},
		{
			"only zero-weight dimension measured",
			Weights{Availability: 1},
			Inputs{Checks: 2, PassedChecks: 2},
			0, false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ComputeScore(tt.in, ScoreOptions{Weights: tt.weights})
			if got.Measured != tt.measured || math.Abs(got.Total-tt.wantTotal) > 1e-9 {
				t.Errorf("ComputeScore(weights %+v) = total %v measured %v, want %v %v",
					tt.weights, got.Total, got.Measured, tt.wantTotal, tt.measured)
			}
			wantGrade := GradeNone
			if tt.measured {
				wantGrade = GradeFor(tt.wantTotal)
			}
			if got.Grade != wantGrade {
				t.Errorf("ComputeScore(weights %+v).Grade = %q, want %q", tt.weights, got.Grade, wantGrade)
			}
			// Weights are reported as given; a zero-weight dimension is
			// still measured and scored, only left out of the total.
			gotW := Weights{got.Availability.Weight, got.Recovery.Weight, got.Consistency.Weight}
			if gotW != tt.weights {
				t.Errorf("ComputeScore dimension weights = %+v, want %+v", gotW, tt.weights)
			}
		})
	}
	got := ComputeScore(Inputs{Checks: 2, PassedChecks: 1}, ScoreOptions{Weights: Weights{Availability: 1}})
	if !got.Consistency.Measured || got.Consistency.Score != 50 {
		t.Errorf("zero-weight consistency = %+v, want measured with score 50", got.Consistency)
	}
}

func TestComputeScoreSpeedOptions(t *testing.T) {
	tests := []struct {
		name string
		opts ScoreOptions
		ttr  time.Duration
		want float64
	}{
		{"custom target and limit, halfway", ScoreOptions{SpeedTarget: 2 * time.Second, SpeedLimit: 4 * time.Second}, 3 * time.Second, 85},
		{"custom target and limit, at target", ScoreOptions{SpeedTarget: 2 * time.Second, SpeedLimit: 4 * time.Second}, 2 * time.Second, 100},
		{"custom target and limit, at limit", ScoreOptions{SpeedTarget: 2 * time.Second, SpeedLimit: 4 * time.Second}, 4 * time.Second, 70},
		{"custom target, default limit", ScoreOptions{SpeedTarget: 2 * time.Second}, 6 * time.Second, 85},  // (10−6)/(10−2)
		{"default target, custom limit", ScoreOptions{SpeedLimit: 5 * time.Second}, 3 * time.Second, 85},   // (5−3)/(5−1)
		{"target above default limit", ScoreOptions{SpeedTarget: 20 * time.Second}, 20 * time.Second, 100}, // limit becomes 21s
		{"target above default limit, slow", ScoreOptions{SpeedTarget: 20 * time.Second}, 21 * time.Second, 70},
		{"milliseconds", ScoreOptions{SpeedTarget: 100 * time.Millisecond, SpeedLimit: 300 * time.Millisecond}, 250 * time.Millisecond, 77.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ComputeScore(Inputs{TTRs: []time.Duration{tt.ttr}, Recovered: []bool{true}}, tt.opts)
			if math.Abs(got.Recovery.Score-tt.want) > 1e-9 {
				t.Errorf("ComputeScore(ttr %v, %+v).Recovery.Score = %v, want %v", tt.ttr, tt.opts, got.Recovery.Score, tt.want)
			}
		})
	}
}

func TestScoreJSON(t *testing.T) {
	tests := []struct {
		name  string
		score Score
		want  map[string]any
	}{
		{
			name:  "unmeasured",
			score: ComputeScore(Inputs{}, ScoreOptions{}),
			want: map[string]any{
				"total": 0.0, "grade": "none", "measured": false, "ungraded": "nothing was measured",
				"availability": map[string]any{"score": 0.0, "measured": false, "weight": 0.4},
				"recovery":     map[string]any{"score": 0.0, "measured": false, "weight": 0.3},
				"consistency":  map[string]any{"score": 0.0, "measured": false, "weight": 0.3},
			},
		},
		{
			name:  "A+",
			score: ComputeScore(Inputs{Samples: 20, HealthySamples: 19}, ScoreOptions{}),
			want: map[string]any{
				"total": 95.0, "grade": "A+", "measured": true,
				"availability": map[string]any{"score": 95.0, "measured": true, "weight": 0.4},
				"recovery":     map[string]any{"score": 0.0, "measured": false, "weight": 0.3},
				"consistency":  map[string]any{"score": 0.0, "measured": false, "weight": 0.3},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.score)
			if err != nil {
				t.Fatalf("json.Marshal(%+v) error = %v", tt.score, err)
			}
			if n := strings.Count(string(b), `"grade"`); n != 1 {
				t.Errorf("json.Marshal(score) = %s has %d grade keys, want 1", b, n)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("json.Unmarshal(%s) error = %v", b, err)
			}
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("json.Marshal(score) mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// The custom encoding is used through a pointer and inside a report too.
	s := ComputeScore(Inputs{}, ScoreOptions{})
	for _, v := range []any{&s, Report{Score: s}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("json.Marshal(%T) error = %v", v, err)
		}
		if !strings.Contains(string(b), `"grade":"none"`) {
			t.Errorf("json.Marshal(%T) = %s, want it to contain \"grade\":\"none\"", v, b)
		}
	}
}

func TestScoreOptionsValidate(t *testing.T) {
	tests := []struct {
		name      string
		opts      ScoreOptions
		wantField string // the error's prefix; "" means valid
	}{
		{"zero value", ScoreOptions{}, ""},
		{"custom", ScoreOptions{Weights: Weights{1, 0, 2}, SpeedTarget: 2 * time.Second, SpeedLimit: 5 * time.Second}, ""},
		{"only a target", ScoreOptions{SpeedTarget: 30 * time.Second}, ""},
		{"only a limit", ScoreOptions{SpeedLimit: 2 * time.Second}, ""},
		{"negative availability weight", ScoreOptions{Weights: Weights{Availability: -1}}, "weights: "},
		{"negative recovery weight", ScoreOptions{Weights: Weights{Recovery: -0.1, Consistency: 1}}, "weights: "},
		{"negative consistency weight", ScoreOptions{Weights: Weights{Consistency: -1}}, "weights: "},
		{"negative target", ScoreOptions{SpeedTarget: -time.Second}, "speed_target: "},
		{"negative limit", ScoreOptions{SpeedLimit: -time.Second}, "speed_limit: "},
		{"limit below target", ScoreOptions{SpeedTarget: 5 * time.Second, SpeedLimit: 2 * time.Second}, "speed_limit: "},
		{"limit equal to target", ScoreOptions{SpeedTarget: 2 * time.Second, SpeedLimit: 2 * time.Second}, "speed_limit: "},
		{"limit below the default target", ScoreOptions{SpeedLimit: 500 * time.Millisecond}, "speed_limit: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			switch {
			case tt.wantField == "" && err != nil:
				t.Errorf("Validate(%+v) = %v, want nil", tt.opts, err)
			case tt.wantField != "" && err == nil:
				t.Errorf("Validate(%+v) = nil, want an error starting %q", tt.opts, tt.wantField)
			case tt.wantField != "" && !strings.HasPrefix(err.Error(), tt.wantField):
				t.Errorf("Validate(%+v) = %q, want it to start %q", tt.opts, err, tt.wantField)
			}
		})
	}
	err := ScoreOptions{SpeedLimit: 500 * time.Millisecond}.Validate()
	if want := "speed_limit: 500ms is not above speed_target 1s"; err == nil || err.Error() != want {
		t.Errorf("Validate(limit 500ms) = %v, want %q", err, want)
	}
}

func TestGradeJSONRoundTrip(t *testing.T) {
	for _, g := range []Grade{GradeAPlus, GradeA, GradeB, GradeC, GradeD, GradeF, GradeNone} {
		b, err := json.Marshal(Score{Grade: g})
		if err != nil {
			t.Fatal(err)
		}
		var back Score
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("Unmarshal(%s) = %v", b, err)
		}
		if back.Grade != g {
			t.Errorf("grade %q round-tripped to %q via %s", g, back.Grade, b)
		}
	}
	var g Grade
	if err := json.Unmarshal([]byte(`"E"`), &g); err == nil || err.Error() != `unknown grade "E" (want A+, A, B, C, D or F)` {
		t.Errorf(`Unmarshal("E") = %v`, err)
	}
}
