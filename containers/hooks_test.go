package containers

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/agentapi/agentfault"
	"github.com/ares-arena/arena/fault"
)

// TestHookTypesAreTheHookPath holds hookTypes to the runtime: with a hook
// for every built-in type, landing each type through arena's injector
// reaches the hooks of exactly hookTypes, each with a fault of its own
// kind. No daemon is needed: the runtime's Docker client points at a
// socket that does not exist, so a fault that does not go through a hook
// fails where it calls Docker (or is refused).
func TestHookTypesAreTheHookPath(t *testing.T) {
	cli, err := client.New(client.WithHost("unix://" + filepath.Join(t.TempDir(), "no-docker.sock")))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	var landing fault.Type
	var hooked []fault.Type
	o := defaultOptions()
	o.hooks = map[fault.Type]FaultHook{}
	for _, s := range fault.Specs() {
		o.hooks[s.Type] = FaultHook{
			Inject: func(_ context.Context, a *Agent, f agentapi.Fault) error {
				if f.Kind != string(landing) {
					t.Errorf("%s reached the hook of %s as a fault of kind %q", landing, s.Type, f.Kind)
				}
				hooked = append(hooked, landing)
				return nil
			},
			Lift: func(context.Context, *Agent) error { return nil },
		}
	}
	r := &Runtime{opts: o, docker: cli, network: &testcontainers.DockerNetwork{ID: "no-network"},
		byID: map[string]*Agent{}, live: map[string]*agentLive{}}
	r.agentFaults = agentfault.Faults{Land: r.landAgentFault}
	for _, a := range []*Agent{
		{ID: "leader-0", Type: fault.TypeLeader, Routes: []string{"worker-1"}},
		{ID: "worker-1", Type: fault.TypeWorker},
	} {
		a.Container = &testcontainers.DockerContainer{ID: "no-container-" + a.ID}
		r.agents = append(r.agents, a)
		r.byID[a.ID], r.live[a.ID] = a, &agentLive{}
	}
	in := fault.NewInjector(r, r)
	for _, s := range fault.Specs() {
		a := fault.Action{Type: s.Type, TargetID: "worker-1"}
		if s.Target == fault.TargetEdge {
			a.SourceID = "leader-0"
		}
		landing = s.Type
		_, err := in.Inject(context.Background(), a, fault.Params{})
		switch through := slices.Contains(hooked, s.Type); {
		case through && err != nil:
			t.Errorf("%s: through its hook, then %v", s.Type, err)
		case !through && err == nil:
			t.Errorf("%s landed with no hook and no daemon", s.Type)
		}
	}
	if want := hookTypes(); !slices.Equal(hooked, want) {
		t.Errorf("types landed through their hook: %v, hookTypes() = %v", hooked, want)
	}
}

// TestWithFaultHookDocNamesTheHookTypes: WithFaultHook's documentation
// names the built-in types a hook takes, and no other.
func TestWithFaultHookDocNamesTheHookTypes(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "options.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var doc string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "WithFaultHook" {
			doc = fn.Doc.Text()
		}
	}
	for _, s := range fault.Specs() {
		named := regexp.MustCompile(`\b` + string(s.Type) + `\b`).MatchString(doc)
		if want := hookable(s.Type); named != want {
			t.Errorf("WithFaultHook's documentation names %s: %t, want %t:\n%s", s.Type, named, want, doc)
		}
	}
}
