package fault_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ares-arena/arena/fault"
)

type pauser struct{ fault.AgentLister }

func (pauser) PauseAgent(context.Context, string) (fault.Lift, error) {
	return func(context.Context) error { return nil }, nil
}
func (pauser) ResumeAgent(context.Context, string) error { return nil }

type agents struct{}

func (agents) ListAgents(context.Context) ([]fault.AgentInfo, error) {
	return []fault.AgentInfo{{ID: "w1", Type: fault.TypeWorker, Status: fault.StatusRunning}}, nil
}

// A Binding lands only through the injector that made it, and the zero
// Binding (an unknown type) lands nowhere and says so.
func TestBindingLandsOnlyWhereItWasMade(t *testing.T) {
	ctx := context.Background()
	in := fault.NewInjectorFor(pauser{agents{}})
	other := fault.NewInjectorFor(pauser{agents{}})
	a, p, b, err := in.Resolve(ctx, fault.Action{Type: fault.PauseAgent, TargetID: "w1"}, nil)
	if err != nil || !b.Known() || b.Err() != nil || b.Index() < 0 || !b.CanLift() || b.Spec().Type != fault.PauseAgent {
		t.Fatalf("Resolve(pause_agent) = %+v, %v; want a known, landable, liftable binding", b, err)
	}
	if lift, err := in.Land(ctx, b, a, p); err != nil || lift == nil {
		t.Errorf("Land on its injector = %v, %v; want the pause landed with its lift", lift, err)
	}
	if _, err := other.Land(ctx, b, a, p); !errors.Is(err, fault.ErrInvalidAction) {
		t.Errorf("Land on another injector = %v, want it refused", err)
	}
	var zero fault.Binding
	if zero.Known() || zero.Index() != -1 || zero.Spec() != nil || !errors.Is(zero.Err(), fault.ErrInvalidAction) {
		t.Errorf("zero Binding: known %v, index %d, err %v; want unknown, -1, an error", zero.Known(), zero.Index(), zero.Err())
	}
	if _, err := in.Land(ctx, zero, a, p); !errors.Is(err, fault.ErrInvalidAction) {
		t.Errorf("Land(zero Binding) = %v, want it refused, not a provider panic", err)
	}
	if b := in.Binding("acme.nothing"); b.Known() || b.Err() == nil {
		t.Errorf("Binding(unknown) = %+v, want unknown", b)
	}
}

// Without a runtime there are no agents: an error, not a nil call.
func TestListAgentsWithoutARuntime(t *testing.T) {
	in := fault.NewInjectorFor(nil)
	if _, err := in.ListAgents(context.Background()); !errors.Is(err, fault.ErrNoRuntime) {
		t.Errorf("ListAgents = %v, want ErrNoRuntime", err)
	}
	if in.HasRuntime() {
		t.Error("HasRuntime() = true without a runtime")
	}
	dst := []fault.AgentInfo{{ID: "kept"}}
	got, err := fault.NewInjectorFor(agents{}).AppendAgents(context.Background(), dst)
	if err != nil || len(got) != 2 || got[0].ID != "kept" || got[1].ID != "w1" {
		t.Errorf("AppendAgents(dst) = %v, %v; want dst's agent then the runtime's", got, err)
	}
}
