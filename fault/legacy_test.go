package fault

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
)

// listerOnly lists agents and lands nothing.
type listerOnly struct{}

func (listerOnly) ListAgents(context.Context) ([]AgentInfo, error) { return nil, nil }

// TestCapabilityNamesAreDerived: a built-in's capability is named after
// the interface that lands it, read from the type: a runtime that lands
// nothing is told, for each type, the interface it lacks; a capability
// that is not an interface of this package is a programming error.
func TestCapabilityNamesAreDerived(t *testing.T) {
	in := NewInjectorFor(listerOnly{}, WithDAG(dagOnly{}))
	for _, s := range Specs() {
		name := s.Capability()
		if !identifier.MatchString(name) {
			t.Errorf("%s: capability %q is not an interface name", s.Type, name)
		}
		err := in.Unsupported(s.Type)
		switch {
		case s.capability.dag && err != nil:
			t.Errorf("Unsupported(%s) = %v with a DAG provider", s.Type, err)
		case !s.capability.dag && (err == nil || !strings.HasSuffix(err.Error(), "(it does not implement fault."+name+")")):
			t.Errorf("Unsupported(%s) = %v, want it to name fault.%s", s.Type, err, name)
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
