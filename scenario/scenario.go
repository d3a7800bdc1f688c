package scenario

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/bound"
)

// Scenario is a declarative chaos run: a list of steps (faults with delays,
// expectations and dependencies), how to play them (Config) and the
// scenario's own gate (Expect). It is what a scenario file holds; see
// Load for the file format and Run for how it runs.
type Scenario struct {
	Name        string   `yaml:"name" json:"name"`
	Description string   `yaml:"description,omitempty" json:"description,omitempty"`
	Tags        []string `yaml:"tags,omitempty" json:"tags,omitempty"`
	Config      Config   `yaml:"config,omitempty" json:"config,omitzero"`
	Actions     []Step   `yaml:"actions" json:"actions"`
	Expect      Gate     `yaml:"expect,omitempty" json:"expect,omitzero"`

	// src holds where the scenario was loaded from: file name and the
	// position of every field, for error messages. Nil when built in code.
	src *scenarioSource
}

// Config says how a scenario is played. Zero values mean the
// documented defaults.
type Config struct {
	// StopOnError: once a step fails (misses its expectation), nothing new
	// starts; steps not started are reported as skipped.
	StopOnError bool `yaml:"stop_on_error,omitempty" json:"stop_on_error,omitempty"`
	// ParallelActions turns the steps into a DAG: a step is ready when all
	// of its depends_on have completed and starts Delay after that.
	ParallelActions bool `yaml:"parallel_actions,omitempty" json:"parallel_actions,omitempty"`
	// MaxConcurrent bounds the injections in flight at once with
	// ParallelActions (default 3). It is an error without ParallelActions.
	MaxConcurrent int `yaml:"max_concurrent,omitempty" json:"max_concurrent,omitempty"`
	// Timeout bounds the whole run; 0 means the planned length (see
	// Scenario.PlannedLength) with slack for slow injections.
	Timeout clock.Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// Warmup is observed before the first step becomes ready.
	Warmup clock.Duration `yaml:"warmup,omitempty" json:"warmup,omitempty"`
	// Cooldown is observed after the last step has completed. A fault still
	// unhealthy when the run ends counts as unrecovered, so give it at least
	// the slowest recovery you expect.
	Cooldown clock.Duration `yaml:"cooldown,omitempty" json:"cooldown,omitempty"`
	// Seed seeds the run's target selectors (and, in the CLI and arenatest,
	// the fake workload); 0 draws one, reported in the Report.
	Seed uint64 `yaml:"seed,omitempty" json:"seed,omitempty"`
	// ProbeInterval and RecoveryDeadline override the service's
	// ObserveOptions for this run. They are the older spelling of the same
	// keys of Observe; setting one in both places is an error.
	ProbeInterval    clock.Duration `yaml:"probe_interval,omitempty" json:"probe_interval,omitempty"`
	RecoveryDeadline clock.Duration `yaml:"recovery_deadline,omitempty" json:"recovery_deadline,omitempty"`
	// AbortWhen stops the run when a condition is met (see AbortWhen): no
	// more faults, a rollback, outcome aborted, gate failed.
	AbortWhen engine.AbortWhen `yaml:"abort_when,omitempty" json:"abort_when,omitzero"`
	// AllowUnhealthyStart injects even when the system is not healthy at
	// the end of the warmup; by default the run is then aborted before its
	// first fault.
	AllowUnhealthyStart bool `yaml:"allow_unhealthy_start,omitempty" json:"allow_unhealthy_start,omitempty"`
	// Observe overrides the service's ObserveOptions for this run.
	Observe *Observe `yaml:"observe,omitempty" json:"observe,omitempty"`
}

// Step is one entry of a scenario's actions: a fault to inject, when,
// and what is expected of the injection itself.
type Step struct {
	// Label names the step for depends_on and reports; unique when given.
	Label string `yaml:"label,omitempty" json:"label,omitempty"`
	// Delay is counted from the step's readiness: the previous step's
	// completion (sequential), or its last dependency's completion
	// (parallel), or the end of the warmup for the first steps.
	Delay  clock.Duration `yaml:"delay,omitempty" json:"delay,omitempty"`
	Action fault.Action   `yaml:"action" json:"action"`
	// ExpectSuccess and ExpectFailure say whether the fault must land or must
	// be refused. Neither means success: a step whose fault does not land
	// fails. Both at once is an error.
	ExpectSuccess bool `yaml:"expect_success,omitempty" json:"expect_success,omitempty"`
	ExpectFailure bool `yaml:"expect_failure,omitempty" json:"expect_failure,omitempty"`
	// DependsOn lists labels of steps that must complete first. Without
	// ParallelActions they may only name earlier steps.
	DependsOn []string `yaml:"depends_on,omitempty" json:"depends_on,omitempty"`
}

// Gate is a scenario's own pass criteria (the `expect` block), checked
// against the run's report. Unset criteria are not checked; every step must
// meet its expectation regardless.
type Gate struct {
	// MinGrade: the run's grade is at least this. A run with nothing
	// measured has no grade and fails it. A run in which none of the
	// steps that expect to land did has no grade either, and fails its
	// gate whether or not the gate sets min_grade (engine.Score.NoneLanded).
	MinGrade engine.Grade `yaml:"min_grade,omitempty" json:"min_grade,omitzero"`
	// MinScore: the run's total score (0–100) is at least this.
	MinScore *float64 `yaml:"min_score,omitempty" json:"min_score,omitempty"`
	// MaxMTTR: the mean time to recover of the recovered faults is at most
	// this. Unrecovered faults are AllRecovered's business.
	MaxMTTR *clock.Duration `yaml:"max_mttr,omitempty" json:"max_mttr,omitempty"`
	// AllRecovered: every landed fault recovered (needs a probe).
	AllRecovered bool `yaml:"all_recovered,omitempty" json:"all_recovered,omitempty"`
	// Consistent: every consistency check passed, and at least one ran.
	Consistent bool `yaml:"consistent,omitempty" json:"consistent,omitempty"`
}

// Scenario limits and defaults.
const (
	// MaxSize caps a scenario file (Load, LoadFile).
	MaxSize = 1 << 20
	// MaxExpanded caps the text of a scenario, its keys and values,
	// with aliases expanded: an alias counts its value every time it
	// repeats it, as every report and error that prints it would. A file
	// without aliases never reaches it.
	MaxExpanded = MaxSize
	// MaxSteps caps the number of actions of a scenario.
	MaxSteps = 10_000
	// MaxLength caps a scenario's planned length, and so each of
	// its warmup, cooldown and delays; longer chaos is what survival mode
	// is for.
	MaxLength = 24 * time.Hour
	// MaxTimeout caps config.timeout: the default timeout of the
	// longest scenario (twice its planned length plus the slack).
	MaxTimeout = 2*MaxLength + DefaultSlack
	// DefaultMaxConcurrent bounds the injections in flight with
	// parallel_actions when max_concurrent is not given.
	DefaultMaxConcurrent = 3
	// DefaultSlack is added (with the planned length once more) to
	// the planned length to bound a scenario without a timeout, so that slow
	// injections in real time do not cut it short.
	DefaultSlack = time.Minute
)

// Load decodes and validates a scenario from YAML (or JSON, which is
// YAML). name labels the source in error messages, usually the file name.
//
// Decoding is strict: unknown keys, wrong types, duplicate keys and
// unparsable values are errors, never ignored or defaulted. All problems
// are reported at once, as Errors in file order, each with
// file:line:column and the field path; a problem of a node that aliases
// repeat is reported once, and at most MaxErrors are listed:
//
//	leader.yaml:12:9: actions[2].action.metadata.dealy: unknown key for slow_agent (want delay, duration)
//
// Action types are the built-ins plus extra: the user-defined types of the
// service the scenario is for (Injector.FaultTypes may be passed whole).
func Load(data []byte, name string, extra ...fault.Spec) (*Scenario, error) {
	if len(data) > MaxSize {
		return nil, Errors{{File: name, Msg: fmt.Sprintf("larger than %d bytes", MaxSize)}}
	}
	sc, errs := decodeScenario(data, name)
	if sc != nil {
		errs = append(errs, validateScenario(sc, fault.NewRegistry(extra...), nil)...)
	}
	if len(errs) > 0 {
		return nil, errs.tidy()
	}
	return sc, nil
}

// LoadFile reads and loads the scenario file at path (at most
// MaxSize bytes), with the extra fault types as Load.
func LoadFile(path string, extra ...fault.Spec) (*Scenario, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkScenarioFile(path, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil { // it may have changed since
		return nil, err
	}
	if err := checkScenarioFile(path, fi); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return Load(data, path, extra...)
}

// checkScenarioFile refuses at once what is not a regular file (a FIFO or a
// device would block the read, or never end) and what is larger than
// MaxSize.
func checkScenarioFile(name string, fi os.FileInfo) error {
	switch m := fi.Mode(); {
	case !m.IsRegular():
		return fmt.Errorf("%s: not a regular file (%s); give a scenario file", name, fileKind(m))
	case fi.Size() > MaxSize:
		return fmt.Errorf("%s: larger than %d bytes", name, MaxSize)
	}
	return nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	default:
		return "mode " + m.String()
	}
}

// Source returns the name the scenario was loaded from ("" when it was
// built in code).
func (sc *Scenario) Source() string {
	if sc.src == nil {
		return ""
	}
	return sc.src.file
}

// maxConcurrent returns the effective bound on injections in flight.
func (c Config) maxConcurrent() int {
	switch {
	case !c.ParallelActions:
		return 1
	case c.MaxConcurrent > 0:
		return c.MaxConcurrent
	}
	return DefaultMaxConcurrent
}

// PlannedLength is how long the scenario runs when injections take no time
// (as in virtual time) and nothing stops it early: warmup, then the longest
// chain of delays (the sum of all delays when sequential), then cooldown.
// It assumes a valid scenario.
func (sc *Scenario) PlannedLength() time.Duration {
	ready := sc.readyOffsets()
	var last time.Duration
	for i, st := range sc.Actions {
		last = max(last, bound.AddSat(ready[i], st.Delay.D()))
	}
	return bound.AddSat(bound.AddSat(sc.Config.Warmup.D(), last), sc.Config.Cooldown.D())
}

// readyOffsets returns when each step becomes ready, from the end of the
// warmup, if injections take no time.
func (sc *Scenario) readyOffsets() []time.Duration {
	ready := make([]time.Duration, len(sc.Actions))
	if !sc.Config.ParallelActions {
		var t time.Duration
		for i, st := range sc.Actions {
			ready[i] = t
			t = bound.AddSat(t, st.Delay.D())
		}
		return ready
	}
	labels := sc.labelIndex()
	done := make([]bool, len(sc.Actions))
	var visit func(i int) time.Duration
	visit = func(i int) time.Duration {
		if done[i] {
			return bound.AddSat(ready[i], sc.Actions[i].Delay.D())
		}
		done[i] = true // a cycle (invalid scenario) ends here instead of looping
		var r time.Duration
		for _, dep := range sc.Actions[i].DependsOn {
			if j, ok := labels[dep]; ok && j != i {
				r = max(r, visit(j))
			}
		}
		ready[i] = r
		return bound.AddSat(r, sc.Actions[i].Delay.D())
	}
	for i := range sc.Actions {
		visit(i)
	}
	return ready
}

// plannedFaults counts the steps that expect their fault to land: a step
// that expects a refusal plans none. A run in which none of them landed
// has no grade (engine.Score.NoneLanded).
func (sc *Scenario) plannedFaults() int {
	n := 0
	for _, st := range sc.Actions {
		if !st.ExpectFailure {
			n++
		}
	}
	return n
}

// labelIndex maps each label to its first step.
func (sc *Scenario) labelIndex() map[string]int {
	m := make(map[string]int, len(sc.Actions))
	for i, st := range sc.Actions {
		if _, dup := m[st.Label]; st.Label != "" && !dup {
			m[st.Label] = i
		}
	}
	return m
}

// runLimit is the Duration of the scenario's run: its timeout, or the
// planned length twice plus DefaultSlack.
func (sc *Scenario) runLimit() time.Duration {
	if sc.Config.Timeout > 0 {
		return sc.Config.Timeout.D()
	}
	plan := sc.PlannedLength()
	return max(bound.AddSat(bound.AddSat(plan, plan), DefaultSlack), time.Millisecond)
}

// Observe is a scenario's config.observe: how its run is observed
// (see ObserveOptions; left-out fields take the service's settings).
type Observe struct {
	ProbeInterval    clock.Duration `yaml:"probe_interval,omitempty" json:"probe_interval,omitempty"`
	ProbeTimeout     clock.Duration `yaml:"probe_timeout,omitempty" json:"probe_timeout,omitempty"`
	SettleTime       clock.Duration `yaml:"settle_time,omitempty" json:"settle_time,omitempty"`
	StableSamples    int            `yaml:"stable_samples,omitempty" json:"stable_samples,omitempty"`
	RecoveryDeadline clock.Duration `yaml:"recovery_deadline,omitempty" json:"recovery_deadline,omitempty"`
}

// ObserveOptions returns the run's observation settings from config.observe
// and the older top-level keys.
func (c Config) ObserveOptions() engine.ObserveOptions {
	o := engine.ObserveOptions{ProbeInterval: c.ProbeInterval.D(), RecoveryDeadline: c.RecoveryDeadline.D()}
	if ob := c.Observe; ob != nil {
		o = engine.ObserveOptions{
			ProbeInterval: ob.ProbeInterval.D(), ProbeTimeout: ob.ProbeTimeout.D(), SettleTime: ob.SettleTime.D(),
			StableSamples: ob.StableSamples, RecoveryDeadline: ob.RecoveryDeadline.D(),
		}.Or(o)
	}
	return o
}
