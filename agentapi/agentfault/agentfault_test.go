package agentfault_test

import (
	"context"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/agentapi/agentfault"
	"github.com/ares-arena/arena/fault"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestFaultsCarryTheirParameters: each capability hands Land the fault the
// contract carries, with its parameters, and hands back Land's lift.
func TestFaultsCarryTheirParameters(t *testing.T) {
	var got []agentapi.Fault
	lifted := 0
	fs := agentfault.Faults{Land: func(_ context.Context, id string, f agentapi.Fault) (fault.Lift, error) {
		if id != "worker-1" {
			t.Errorf("Land on %q, want worker-1", id)
		}
		got = append(got, f)
		return func(context.Context) error { lifted++; return nil }, nil
	}}
	ctx := context.Background()
	var lifts []fault.Lift
	keep := func(l fault.Lift, err error) {
		if err != nil {
			t.Fatal(err)
		}
		lifts = append(lifts, l)
	}
	keep(fs.ToolTimeout(ctx, "worker-1", 3*time.Second))
	keep(fs.DisconnectMCP(ctx, "worker-1"))
	keep(fs.InjectLLMFailure(ctx, "worker-1", fault.LLMOverloaded))
	keep(fs.JumpClock(ctx, "worker-1", time.Minute))
	if err := fs.CorruptMemory(ctx, "worker-1"); err != nil {
		t.Fatal(err)
	}
	want := []agentapi.Fault{
		{Kind: agentapi.KindToolTimeout, Timeout: agentapi.Duration(3 * time.Second)},
		{Kind: agentapi.KindMCPDisconnect},
		{Kind: agentapi.KindLLMFailure, ErrorType: "overloaded"},
		{Kind: agentapi.KindClockJump, Offset: agentapi.Duration(time.Minute)},
		{Kind: agentapi.KindMemoryCorrupt},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("faults landed (-want +got):\n%s", diff)
	}
	for _, l := range lifts {
		_ = l(ctx)
	}
	if lifted != len(lifts) {
		t.Errorf("%d lifts ran, want the %d of the liftable faults", lifted, len(lifts))
	}
}

// recorder is a runtime with Faults' capabilities alone, whose Land notes
// the kinds it is handed.
type recorder struct {
	agentfault.Faults
}

func (recorder) ListAgents(context.Context) ([]fault.AgentInfo, error) { return nil, nil }

// TestTypesAreWhatFaultsLands: landing every built-in type through arena's
// injector over a runtime that has Faults' capabilities alone reaches Land
// for exactly Types, each as a fault of the contract's kind of its name.
func TestTypesAreWhatFaultsLands(t *testing.T) {
	var landing fault.Type
	var landed []fault.Type
	rt := recorder{agentfault.Faults{Land: func(_ context.Context, _ string, f agentapi.Fault) (fault.Lift, error) {
		if f.Kind != string(landing) {
			t.Errorf("%s landed as a fault of kind %q", landing, f.Kind)
		}
		landed = append(landed, landing)
		return func(context.Context) error { return nil }, nil
	}}}
	in := fault.NewInjectorFor(rt)
	for _, s := range fault.Specs() {
		landing = s.Type
		lift, err := in.Inject(context.Background(), fault.Action{Type: s.Type, TargetID: "worker-1"}, fault.Params{})
		if slices.Contains(landed, s.Type) && err != nil {
			t.Errorf("%s: Land reached, then %v", s.Type, err)
		}
		if err == nil && s.Lifts && lift == nil {
			t.Errorf("%s: landed with no lift", s.Type)
		}
	}
	if got := agentfault.Types(); !slices.Equal(got, landed) {
		t.Errorf("Types() = %v, want the types that reach Land: %v", got, landed)
	}
}

// TestEveryAgentLevelKindIsLanded: Faults lands every built-in type that is
// a kind of the contract (agentapi.Kinds), but the DAG faults, which a
// runtime lands as a DAG provider; and every type it lands is such a kind.
// A built-in type added to arena and to the contract fails it until Faults
// implements its capability.
func TestEveryAgentLevelKindIsLanded(t *testing.T) {
	types := agentfault.Types()
	dag := reflect.TypeFor[fault.DAGProvider]().Name()
	for _, s := range fault.Specs() {
		kind := slices.Contains(agentapi.Kinds(), string(s.Type))
		lands := slices.Contains(types, s.Type)
		switch {
		case kind && s.Capability() != dag && !lands:
			t.Errorf("%s is a kind of the contract, but Faults does not land it: implement fault.%s", s.Type, s.Capability())
		case lands && !kind:
			t.Errorf("Faults lands %s, which is no kind of the contract (agentapi.Kinds)", s.Type)
		}
	}
}

// TestPackageDocNamesTheTypes: the package documentation names every type
// Faults lands.
func TestPackageDocNamesTheTypes(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "agentfault.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	for _, typ := range agentfault.Types() {
		if !regexp.MustCompile(`\b` + string(typ) + `\b`).MatchString(doc) {
			t.Errorf("the package documentation does not name %s:\n%s", typ, doc)
		}
	}
}
