package fault_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ares-arena/arena/fault"
)

// NewRegistry keeps the built-ins whatever extra says, adds the user's
// own types after them, and refuses a malformed or doubled spec as
// WithFault does.
func TestNewRegistry(t *testing.T) {
	mine := fault.Spec{Type: "acme.disk_full", Target: fault.TargetAgent, Priority: 5, Fix: "f", Suggestion: "s",
		Inject: func(context.Context, fault.Action, fault.Params) error { return nil }}
	usurper := mine
	usurper.Type, usurper.Doc = fault.KillLeader, "mine"

	r := fault.NewRegistry(append(fault.Specs(), usurper, mine)...)
	if got, want := r.Len(), len(fault.Specs())+1; got != want {
		t.Errorf("Len() = %d, want the built-ins and one of mine, %d", got, want)
	}
	if s, ok := r.Lookup(fault.KillLeader); !ok || s.Doc == "mine" {
		t.Errorf("kill_leader = %+v, want the built-in kept", s)
	}
	if _, ok := r.Lookup("acme.disk_full"); !ok || !strings.HasSuffix(r.Names(), ", acme.disk_full") {
		t.Errorf("acme.disk_full: want it last, after the built-ins: %s", r.Names())
	}
	for name, extra := range map[string][]fault.Spec{
		"malformed": {{Type: "acme.x"}},
		"twice":     {mine, mine},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), "arena: NewRegistry: ") {
					t.Errorf("%s: panic %v, want one naming NewRegistry", name, r)
				}
			}()
			fault.NewRegistry(extra...)
		}()
	}
}
