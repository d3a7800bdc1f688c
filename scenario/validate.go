package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/bound"
)

// Validate checks a scenario and returns every problem found as
// Errors (nil when it is valid): required fields; each action's type,
// target and metadata (as Action.Validate, but all of them); unique labels;
// depends_on that resolve, point backwards unless parallel_actions, and form
// no cycle (the cycle is named: "cycle: a -> b -> a"); non-negative
// durations; expect_success and expect_failure not both set; a timeout no
// shorter than the planned length; a sane gate. For a loaded scenario each
// problem carries its file, line and column.
//
// Action types are the built-ins plus extra (user-defined types, as given
// to WithFault). ValidateFor also checks that the service's
// runtime can land every step.
func Validate(sc *Scenario, extra ...fault.Spec) error {
	return validateScenarioWith(sc, fault.NewRegistry(extra...), nil)
}

// ValidateFor is Validate against a service: the types registered
// on its injector are known, and a step whose fault the runtime cannot
// land is a problem named by its step:
//
//	actions[3].action.type: mcp_disconnect is not supported by this runtime (it does not implement fault.MCPDisconnecter)
//
// It checks what Run checks before it starts, so that a
// scenario it accepts runs: the service's bound on a fault's duration
// (WithMaxFaultDuration), the observation settings merged with the
// service's, and that abort_when.checks_failed names the system's checks.
func ValidateFor(svc *engine.Service, sc *Scenario) error {
	in := svc.Injector()
	if err := validateScenarioWith(sc, in.Registry(), in); err != nil {
		return err
	}
	var errs Errors
	for i, st := range sc.Actions {
		p, _ := in.Registry().Params(st.Action) // valid: checked above
		if err := svc.CheckDuration(p); err != nil {
			var ve *fault.ValidationError
			errors.As(err, &ve)
			errs = append(errs, sc.src.errAt(fmt.Sprintf("actions[%d].action.%s", i, ve.Field), "%s", ve.Msg))
		}
	}
	if err := sc.Config.ObserveOptions().Or(svc.ObserveOptions()).Validate(); err != nil {
		errs = append(errs, sc.src.errAt("config.observe", "%v (with the service's settings)", err))
	}
	if err := sc.Config.AbortWhen.Validate("config.abort_when", svc.Checks()); err != nil {
		path, msg, _ := strings.Cut(err.Error(), ": ")
		errs = append(errs, sc.src.errAt(path, "%s", msg))
	}
	if len(errs) > 0 {
		return errs.tidy()
	}
	return nil
}

func validateScenarioWith(sc *Scenario, fs *fault.Registry, in *fault.Injector) error {
	if sc == nil {
		return Errors{{Msg: "nil scenario"}}
	}
	if errs := validateScenario(sc, fs, in); len(errs) > 0 {
		return errs.tidy()
	}
	return nil
}

type scenarioValidator struct {
	sc     *Scenario
	faults *fault.Registry
	in     *fault.Injector // when not nil: every step's type must be one it can land
	errs   Errors
}

func (v *scenarioValidator) add(path, format string, args ...any) {
	if v.sc.src.failed(path) {
		return // already reported by the decoder
	}
	v.errs = append(v.errs, v.sc.src.errAt(path, format, args...))
}

// MaxNameLength bounds a scenario's name, its tags and its step labels,
// in bytes.
const MaxNameLength = 256

// name checks a name shown to people (the scenario's, a tag, a label): one
// line of plain text, no escapes or hidden characters, at most
// MaxNameLength bytes.
func (v *scenarioValidator) name(path, s string) {
	switch {
	case nameProblem(s) != "":
		v.add(path, "%q %s", s, nameProblem(s))
	case len(s) > MaxNameLength:
		v.add(path, "%d bytes, longer than %d", len(s), MaxNameLength)
	}
}

// durationIn checks a duration against its range, lo to hi; 0 (left out)
// is always accepted: it means the default.
func (v *scenarioValidator) durationIn(path string, d clock.Duration, lo, hi time.Duration) {
	switch {
	case d < 0:
		v.add(path, "negative duration %s (want %s)", d, bound.Range(lo, hi))
	case d > 0 && d.D() < lo, d.D() > hi:
		v.add(path, "%s is out of range (want %s)", bound.FormatDuration(d.D()), bound.Range(lo, hi))
	}
}

// observeIn checks an observation setting against its range (CheckObserve).
func (v *scenarioValidator) observeIn(path, name string, value int64) {
	if err := engine.CheckObserve(name, value); err != nil {
		_, msg, _ := strings.Cut(err.Error(), ": ")
		v.add(path, "%s", msg)
	}
}

func validateScenario(sc *Scenario, fs *fault.Registry, in *fault.Injector) Errors {
	v := &scenarioValidator{sc: sc, faults: fs, in: in}
	switch {
	case sc.Name == "" && (sc.src == nil || !sc.src.present("name")):
		v.add("name", "missing")
	case strings.TrimSpace(sc.Name) == "":
		v.add("name", "empty")
	default:
		v.name("name", sc.Name)
	}
	for i, tag := range sc.Tags {
		if strings.TrimSpace(tag) == "" {
			v.add(pathIndex("tags", i), "empty tag")
		} else {
			v.name(pathIndex("tags", i), tag)
		}
	}
	v.config()
	v.steps()
	acyclic := v.dependencies()
	v.gate()
	if acyclic && !v.timingBroken() {
		v.length()
	}
	return v.errs
}

func (v *scenarioValidator) config() {
	c := v.sc.Config
	switch {
	case c.MaxConcurrent < 0 || c.MaxConcurrent > MaxSteps:
		v.add("config.max_concurrent", "%d is out of range (want 1 to %d)", c.MaxConcurrent, MaxSteps)
	case c.MaxConcurrent > 0 && !c.ParallelActions && !v.sc.src.failed("config.parallel_actions"):
		v.add("config.max_concurrent", "only applies with parallel_actions: true (steps run one at a time)")
	}
	v.durationIn("config.timeout", c.Timeout, 0, MaxTimeout)
	v.durationIn("config.warmup", c.Warmup, 0, MaxLength)
	v.durationIn("config.cooldown", c.Cooldown, 0, MaxLength)
	v.observeIn("config.probe_interval", "probe_interval", int64(c.ProbeInterval))
	v.observeIn("config.recovery_deadline", "recovery_deadline", int64(c.RecoveryDeadline))
	v.durationIn("config.abort_when.unhealthy_for", c.AbortWhen.UnhealthyFor, 0, MaxLength)
	if x := c.AbortWhen.ScoreBelow; x < 0 || x > 100 || x != x {
		v.add("config.abort_when.score_below", "%v is not a score from 0 to 100", x)
	}
	for i, name := range c.AbortWhen.ChecksFailed {
		if name == "" {
			v.add(pathIndex("config.abort_when.checks_failed", i), "empty check name")
		}
	}
	if ob := c.Observe; ob != nil {
		if c.ProbeInterval != 0 && ob.ProbeInterval != 0 {
			v.add("config.probe_interval", "also set as config.observe.probe_interval (keep one)")
		}
		if c.RecoveryDeadline != 0 && ob.RecoveryDeadline != 0 {
			v.add("config.recovery_deadline", "also set as config.observe.recovery_deadline (keep one)")
		}
		v.observeIn("config.observe.probe_interval", "probe_interval", int64(ob.ProbeInterval))
		v.observeIn("config.observe.probe_timeout", "probe_timeout", int64(ob.ProbeTimeout))
		v.observeIn("config.observe.settle_time", "settle_time", int64(ob.SettleTime))
		v.observeIn("config.observe.recovery_deadline", "recovery_deadline", int64(ob.RecoveryDeadline))
		v.observeIn("config.observe.stable_samples", "stable_samples", int64(ob.StableSamples))
	}
}

func (v *scenarioValidator) steps() {
	sc := v.sc
	switch {
	case len(sc.Actions) == 0 && (sc.src == nil || !sc.src.present("actions")):
		v.add("actions", "missing (a scenario needs at least one step)")
		return
	case len(sc.Actions) == 0:
		v.add("actions", "empty (a scenario needs at least one step)")
		return
	case len(sc.Actions) > MaxSteps:
		v.add("actions", "%d steps (at most %d)", len(sc.Actions), MaxSteps)
		return
	}
	first := map[string]int{}
	for i, st := range sc.Actions {
		p := pathIndex("actions", i)
		if st.Label != "" {
			v.name(p+".label", st.Label)
			if j, dup := first[st.Label]; dup {
				v.add(p+".label", "duplicate label %q (also actions[%d])", st.Label, j)
			} else {
				first[st.Label] = i
			}
		} else if sc.src != nil && sc.src.present(p+".label") {
			v.add(p+".label", "empty (leave it out, or name the step)")
		}
		v.durationIn(p+".delay", st.Delay, 0, MaxLength)
		if !sc.src.present(p + ".action") {
			v.add(p+".action", "missing")
		} else {
			problems := v.faults.Problems(st.Action)
			for _, e := range problems {
				v.add(p+".action."+e.Field, "%s", e.Msg)
			}
			if v.in != nil && len(problems) == 0 {
				if err := v.in.Unsupported(st.Action.Type); errors.Is(err, fault.ErrUnsupported) {
					v.add(p+".action.type", "%v", err)
				}
			}
		}
		if st.ExpectSuccess && st.ExpectFailure {
			v.add(p+".expect_failure", "both expect_success and expect_failure are set (choose one)")
		}
	}
}

// dependencies checks depends_on and reports whether the steps are free of
// cycles.
func (v *scenarioValidator) dependencies() bool {
	sc := v.sc
	if len(sc.Actions) > MaxSteps {
		return false
	}
	labels := sc.labelIndex()
	acyclic := true
	for i, st := range sc.Actions {
		seen := map[string]bool{}
		for k, dep := range st.DependsOn {
			p := fmt.Sprintf("actions[%d].depends_on[%d]", i, k)
			j, ok := labels[dep]
			switch {
			case dep == "":
				v.add(p, "empty label")
			case seen[dep]:
				v.add(p, "duplicate dependency %q", dep)
			case !ok:
				v.add(p, "unknown label %q", dep)
			case j == i:
				v.add(pathIndex("actions", i)+".depends_on", "cycle: %s -> %s", dep, dep)
				acyclic = false
			case j > i && !sc.Config.ParallelActions && !sc.src.failed("config.parallel_actions"):
				v.add(p, "%q is a later step (actions[%d]); without parallel_actions a step may only depend on earlier steps", dep, j)
			}
			seen[dep] = true
		}
	}
	if sc.Config.ParallelActions {
		for _, cyc := range sc.cycles(labels) {
			names := make([]string, 0, len(cyc)+1)
			for _, i := range cyc {
				names = append(names, sc.Actions[i].Label)
			}
			names = append(names, names[0])
			v.add(pathIndex("actions", cyc[0])+".depends_on", "cycle: %s", strings.Join(names, " -> "))
			acyclic = false
		}
	}
	return acyclic
}

// cycles finds the dependency cycles of length two or more (a step that
// names itself is reported on its own), each starting at its earliest step
// and following depends_on.
func (sc *Scenario) cycles(labels map[string]int) [][]int {
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(sc.Actions))
	var stack []int
	var found [][]int
	seen := map[string]bool{}
	var visit func(i int)
	visit = func(i int) {
		color[i] = grey
		stack = append(stack, i)
		for _, dep := range sc.Actions[i].DependsOn {
			j, ok := labels[dep]
			if !ok || j == i {
				continue
			}
			switch color[j] {
			case white:
				visit(j)
			case grey:
				k := len(stack) - 1
				for stack[k] != j {
					k--
				}
				cyc := rotateToMin(append([]int(nil), stack[k:]...))
				if key := fmt.Sprint(cyc); !seen[key] {
					seen[key] = true
					found = append(found, cyc)
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[i] = black
	}
	for i := range sc.Actions {
		if color[i] == white {
			visit(i)
		}
	}
	return found
}

func rotateToMin(cyc []int) []int {
	m := 0
	for i, x := range cyc {
		if x < cyc[m] {
			m = i
		}
	}
	return append(cyc[m:], cyc[:m]...)
}

func (v *scenarioValidator) gate() {
	g := v.sc.Expect
	if g.MinGrade != engine.GradeNone {
		if _, err := engine.ParseGrade(string(g.MinGrade)); err != nil {
			v.add("expect.min_grade", "%v", err)
		}
	}
	if g.MinScore != nil && !(*g.MinScore >= 0 && *g.MinScore <= 100) {
		v.add("expect.min_score", "want a score from 0 to 100, got %v", *g.MinScore)
	}
	if g.MaxMTTR != nil {
		v.durationIn("expect.max_mttr", *g.MaxMTTR, 0, engine.MaxObserveWindow)
	}
}

// timingBroken reports whether a problem already found (or a value that
// failed to decode) makes the planned length meaningless.
func (v *scenarioValidator) timingBroken() bool {
	paths := make([]string, 0, len(v.errs))
	for _, e := range v.errs {
		paths = append(paths, e.Path)
	}
	if v.sc.src != nil {
		for p := range v.sc.src.bad {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		switch {
		case p == "" || p == "actions" || p == "config" || strings.Contains(p, "depends_on"),
			strings.HasPrefix(p, "actions[") && strings.Count(p, ".") == 0,
			strings.HasSuffix(p, "].delay"),
			slices.Contains([]string{"config.timeout", "config.warmup", "config.cooldown", "config.parallel_actions"}, p):
			return true
		}
	}
	return false
}

// length checks the planned length against the timeout and the cap.
func (v *scenarioValidator) length() {
	plan := v.sc.PlannedLength()
	if plan > MaxLength {
		v.add("", "planned length %s exceeds %s (warmup, the longest chain of delays, cooldown); survival mode is for longer chaos",
			bound.FormatDuration(plan), bound.FormatDuration(MaxLength))
		return
	}
	if t := v.sc.Config.Timeout.D(); t > 0 && t < plan {
		v.add("config.timeout", "%s is shorter than the planned length %s (warmup, the longest chain of delays, cooldown)",
			bound.FormatDuration(t), bound.FormatDuration(plan))
	}
}

// nameProblem is fault.IdentifierProblem for names shown to people (a scenario's
// name): spaces are fine, but not line breaks, escapes (ESC and the other
// control characters) or hidden characters, which could forge a line of a
// report.
func nameProblem(name string) string {
	if !utf8.ValidString(name) {
		return "is not valid UTF-8"
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) {
			return fmt.Sprintf("contains the control character %U (names are one line of plain text)", r)
		}
		if p := bound.Hidden(r); p != "" {
			return fmt.Sprintf("contains %U, %s", r, p)
		}
	}
	return ""
}

// checkTargets resolves every step's target against what the service's
// system lists now (fault.Targets): an agent's ID it does not list, a
// selector no agent fits (type:worker on a system without workers), a DAG
// node or edge it does not have, is a problem of that step that names the
// target, what the system lists and the fix. A role nobody holds yet (no
// leader elected before the run) is not: its steps are returned in later,
// to be checked again once the warmup is over.
func checkTargets(ctx context.Context, in *fault.Injector, sc *Scenario) (later []int, err error) {
	tg, err := in.Targets(ctx)
	if err != nil {
		return nil, fmt.Errorf("scenario %q: resolve targets: %w", sc.Name, err)
	}
	var errs Errors
	for i, st := range sc.Actions {
		err := tg.Check(st.Action)
		var te *fault.TargetError
		switch {
		case err == nil:
		case errors.As(err, &te) && te.Role != "":
			later = append(later, i)
		default:
			errs = append(errs, targetProblem(sc, i, err, ""))
		}
	}
	if len(errs) > 0 {
		return nil, errs.tidy()
	}
	return later, nil
}

// targetProblem is the problem of step i whose target did not resolve
// (a *fault.TargetError), when says when the targets were listed ("" for
// before the run).
func targetProblem(sc *Scenario, i int, err error, when string) *Error {
	field := "target_id"
	var te *fault.TargetError
	if errors.As(err, &te) {
		field = te.Field
		if when != "" {
			c := *te
			c.Why += " " + when
			err = &c
		}
	}
	step := fmt.Sprintf("step %d", i)
	if l := sc.Actions[i].Label; l != "" {
		step = fmt.Sprintf("step %q", l)
	}
	e := sc.src.errAt(fmt.Sprintf("actions[%d].action.%s", i, field), "%s: %v", step, err)
	e.Err = err
	return e
}

// recheckRoles checks again, at the end of the warmup, the steps whose
// role nobody held before the run.
func recheckRoles(ctx context.Context, in *fault.Injector, sc *Scenario, steps []int, warmup time.Duration) Errors {
	tg, err := in.Targets(ctx)
	if err != nil {
		return Errors{sc.src.errAt("", "at the end of the warmup: %v", err)}
	}
	var errs Errors
	for _, i := range steps {
		if err := tg.Check(sc.Actions[i].Action); err != nil {
			errs = append(errs, targetProblem(sc, i, err, "at the end of the warmup ("+bound.FormatDuration(warmup)+")"))
		}
	}
	return errs.tidy()
}
