package arena

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// oldRuntime is a runtime written against the capabilities as they were
// before Lift: its methods return only an error.
type oldRuntime struct{ s *stubRuntime }

func (o oldRuntime) ListAgents(ctx context.Context) ([]AgentInfo, error) { return o.s.ListAgents(ctx) }
func (o oldRuntime) StopAgent(ctx context.Context, id string) error      { return o.s.StopAgent(ctx, id) }
func (o oldRuntime) PauseAgent(_ context.Context, id string) error {
	return o.s.fault("PauseAgent", id)
}
func (o oldRuntime) ResumeAgent(_ context.Context, id string) error {
	return o.s.fault("ResumeAgent", id)
}
func (o oldRuntime) SlowAgent(_ context.Context, id string, d time.Duration) error {
	return o.s.fault("SlowAgent", id+","+d.String())
}
func (o oldRuntime) InjectLatency(_ context.Context, id string, l Latency) error {
	return o.s.fault("InjectLatency", id+","+l.Latency.String())
}

// oldLifter is an oldRuntime that lifts through the deprecated FaultLifter.
type oldLifter struct{ oldRuntime }

func (o oldLifter) LiftFault(_ context.Context, kind ActionType, id string) error {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	o.s.calls = append(o.s.calls, "LiftFault("+string(kind)+","+id+")")
	o.s.forever = false
	return nil
}

var _ FaultLifter = oldLifter{}

// TestLegacyRuntimeLandsAndLifts: a runtime of the old shape still lands
// what it has, and arena lifts its timed faults through its LiftFault.
func TestLegacyRuntimeLandsAndLifts(t *testing.T) {
	clock := NewVirtualClock(time.Time{})
	stub := newStub(clock, -1)
	in := NewInjectorFor(oldLifter{oldRuntime{stub}})
	for _, typ := range []ActionType{ActionKillAgent, ActionPauseAgent, ActionResumeAgent, ActionSlowAgent, ActionNetworkLatency} {
		if err := in.Unsupported(typ); err != nil {
			t.Errorf("Unsupported(%s) = %v, want nil: the old method lands it", typ, err)
		}
	}
	for _, typ := range []ActionType{ActionPauseAgent, ActionSlowAgent, ActionNetworkLatency} {
		if !in.CanLift(typ) {
			t.Errorf("CanLift(%s) = false, want true: the runtime has LiftFault", typ)
		}
	}
	if err := in.Unsupported(ActionToolTimeout); err == nil || !strings.Contains(err.Error(), "it does not implement arena.ToolTimeouter") {
		t.Errorf("Unsupported(tool_timeout) = %v, want the capability named", err)
	}
	svc := NewService(in, nil, nil, WithClock(clock), WithProbe(stub.probe))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 10 * time.Second},
		Step{At: time.Second, Action: Action{Type: ActionSlowAgent, TargetID: "worker-1", Metadata: map[string]any{"duration": "1.5s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; f.Lifted == nil || !f.Recovered {
		t.Errorf("fault = %+v, want lifted and recovered", f)
	}
	if want := "LiftFault(slow_agent,worker-1)"; !slices.Contains(stub.Calls(), want) {
		t.Errorf("calls %v, want %s", stub.Calls(), want)
	}
}

// TestLegacyRuntimeWithoutLifter: without LiftFault a runtime of the old
// shape lands its faults and arena leaves them to the system.
func TestLegacyRuntimeWithoutLifter(t *testing.T) {
	clock := NewVirtualClock(time.Time{})
	stub := newStub(clock, -1)
	in := NewInjectorFor(oldRuntime{stub})
	if in.CanLift(ActionPauseAgent) {
		t.Error("CanLift(pause_agent) = true, want false: nothing lifts it")
	}
	svc := NewService(in, nil, nil, WithClock(clock), WithProbe(stub.probe))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 10 * time.Second},
		Step{At: time.Second, Action: Action{Type: ActionPauseAgent, TargetID: "worker-1", Metadata: map[string]any{"duration": "1.5s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; f.Lifted != nil || f.Recovered {
		t.Errorf("fault = %+v, want neither lifted nor recovered (the runtime cannot lift)", f)
	}
}

// refusing lands only pauses and refuses the rest, with a reason, in one
// place.
type refusing struct{ *stubRuntime }

func (r refusing) Refusals() map[ActionType]string {
	return map[ActionType]string{
		ActionNetworkLatency: "no proxy between the agents",
		ActionPauseAgent:     "refused, but implemented all the same",
	}
}

// TestRefusalSaysTheRuntimesReason: a type the runtime refuses is
// ErrUnsupported with its reason; a capability it implements wins over a
// refusal of its type (arenatest.TestRuntime fails a runtime that does
// both).
func TestRefusalSaysTheRuntimesReason(t *testing.T) {
	in := NewInjectorFor(refusing{newStub(RealClock{}, 0)})
	err := in.Unsupported(ActionNetworkLatency)
	if want := "network_latency is not supported by this runtime: no proxy between the agents"; err == nil || err.Error() != want || !errors.Is(err, ErrUnsupported) {
		t.Errorf("Unsupported(network_latency) = %v, want %q wrapping ErrUnsupported", err, want)
	}
	if err := in.Unsupported(ActionNetworkBandwidth); err == nil || !strings.Contains(err.Error(), "(it does not implement arena.BandwidthLimiter)") {
		t.Errorf("Unsupported(network_bandwidth) = %v, want the capability named", err)
	}
	if err := in.Unsupported(ActionPauseAgent); err != nil {
		t.Errorf("Unsupported(pause_agent) = %v, want nil: the runtime implements Pauser", err)
	}
}

// noLiftRuntime lands pauses and hands back no Lift: a bug of the runtime.
type noLiftRuntime struct{ *stubRuntime }

func (n noLiftRuntime) PauseAgent(ctx context.Context, id string) (Lift, error) {
	_, err := n.stubRuntime.PauseAgent(ctx, id)
	return nil, err
}

// TestMissingLiftIsReported: a liftable fault landed without a Lift is
// still lifted by arena, and the lift fails saying the runtime handed back
// none.
func TestMissingLiftIsReported(t *testing.T) {
	clock := NewVirtualClock(time.Time{})
	stub := newStub(clock, 0)
	svc := NewService(NewInjectorFor(noLiftRuntime{stub}), nil, nil, WithClock(clock), WithProbe(stub.probe))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 5 * time.Second},
		Step{At: time.Second, Action: Action{Type: ActionPauseAgent, TargetID: "worker-1", Metadata: map[string]any{"duration": "1s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; !strings.Contains(f.LiftError, "the runtime landed it but handed back no Lift") {
		t.Errorf("fault = %+v, want a lift error that says the runtime handed back no Lift", f)
	}
}

// listerOnly lists agents and lands nothing.
type listerOnly struct{}

func (listerOnly) ListAgents(context.Context) ([]AgentInfo, error) { return nil, nil }

// TestCapabilityNamesAreDerived: a built-in's capability is named after
// the interface that lands it, read from the type: a runtime that lands
// nothing is told, for each type, the interface it lacks; a capability
// that is not an interface of this package is a programming error.
func TestCapabilityNamesAreDerived(t *testing.T) {
	in := NewInjectorFor(listerOnly{}, WithDAG(dagOnly{}))
	for _, s := range FaultSpecs() {
		name := s.Capability()
		if !identifier.MatchString(name) {
			t.Errorf("%s: capability %q is not an interface name", s.Type, name)
		}
		err := in.Unsupported(s.Type)
		switch {
		case s.capability.dag && err != nil:
			t.Errorf("Unsupported(%s) = %v with a DAG provider", s.Type, err)
		case !s.capability.dag && (err == nil || !strings.HasSuffix(err.Error(), "(it does not implement arena."+name+")")):
			t.Errorf("Unsupported(%s) = %v, want it to name arena.%s", s.Type, err, name)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "not io.Reader") {
			t.Errorf("liftVia[io.Reader] panicked with %v, want a programming error naming the type", r)
		}
	}()
	landVia(func(io.Reader, context.Context, Action, Params) error { return nil })
}

var identifier = regexp.MustCompile(`^[A-Z][A-Za-z]*$`)

// dagOnly is a DAG provider and nothing else.
type dagOnly struct{}

func (dagOnly) ListNodes(context.Context) ([]string, error)      { return nil, nil }
func (dagOnly) ListEdges(context.Context) ([]Edge, error)        { return nil, nil }
func (dagOnly) RemoveNode(context.Context, string) error         { return nil }
func (dagOnly) RemoveEdge(context.Context, string, string) error { return nil }
