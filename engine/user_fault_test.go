package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// TestUserTypeWithABuiltinName: a user type whose name a later release
// adopted as a built-in does not panic at start; the injector says why and
// refuses actions of that name until the type is renamed; a namespaced
// name ("acme.disk_full") can never meet a built-in and works everywhere.
func TestUserTypeWithABuiltinName(t *testing.T) {
	var landed []string
	spec := func(name fault.Type) fault.Spec {
		return fault.Spec{Type: name, Target: fault.TargetAgent, Priority: 5, Fix: "f", Suggestion: "s",
			Inject: func(_ context.Context, a fault.Action, _ fault.Params) error {
				landed = append(landed, string(a.Type))
				return nil
			}}
	}
	stub := engine.NewStub(clock.NewVirtual(time.Time{}), 0)
	in := fault.NewInjectorFor(stub, fault.WithFault(spec(fault.KillAgent)), fault.WithFault(spec("acme.disk_full")))
	if err := in.Err(); !errors.Is(err, fault.ErrBuiltinName) || !strings.Contains(err.Error(), "rename yours into a namespace of your own (acme.kill_agent)") {
		t.Errorf("Err() = %v, want ErrBuiltinName naming the fix", err)
	}
	svc := engine.NewService(in, nil, nil)
	if res := svc.Execute(context.Background(), fault.Action{Type: fault.KillAgent, TargetID: "worker-1"}); res.Success ||
		!strings.Contains(res.Error, "the name of a built-in type") {
		t.Errorf("kill_agent = %+v, want refused: the name is both yours and a built-in's", res)
	}
	if res := svc.Execute(context.Background(), fault.Action{Type: "acme.disk_full", TargetID: "worker-1"}); !res.Success {
		t.Errorf("acme.disk_full = %+v, want landed", res)
	}
	sc, err := scenario.Load([]byte("name: ns\nactions:\n  - action: {type: acme.disk_full, target_id: worker-1}\n"), "ns.yaml", spec("acme.disk_full"))
	if err != nil || sc.Actions[0].Action.Type != "acme.disk_full" {
		t.Errorf("a namespaced type in YAML: %v, %v", sc, err)
	}
	if !slices.Equal(landed, []string{"acme.disk_full"}) {
		t.Errorf("landed %v, want only acme.disk_full", landed)
	}
	for _, name := range []fault.Type{"acme.", ".disk", "acme.disk.full", "Acme.disk", fault.Type(strings.Repeat("a", 64))} {
		if err := spec(name).Check(); err == nil {
			t.Errorf("Check(%q) = nil, want the name refused", name)
		}
	}
	for _, s := range fault.Specs() {
		if strings.Contains(string(s.Type), ".") {
			t.Errorf("built-in %s has a dot: the namespace separator is the users'", s.Type)
		}
	}
}
