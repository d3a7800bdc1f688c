package schema_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/scenarios"
	"github.com/ares-arena/arena/schema"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestForBuiltinsIsTheShippedSchema(t *testing.T) {
	got, err := schema.For(arena.NewInjector(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(scenarios.Schema()), string(got)); diff != "" {
		t.Errorf("For(built-ins) differs from scenarios.Schema() (-want +got):\n%s", diff)
	}
}

func TestForKnowsTheServicesTypes(t *testing.T) {
	in := arena.NewInjectorFor(nil, arena.WithFault(arena.FaultSpec{
		Type: "clock_skew", Doc: "Moves the system's clock.", Target: arena.TargetSystem, Priority: 3, Fix: "f", Suggestion: "s",
		Inject:   func(context.Context, arena.Action, arena.Params) error { return nil },
		Metadata: []arena.MetaKey{{Name: "direction", Kind: arena.MetaKindString, Enum: []string{"ahead", "behind"}, Doc: "Which way."}},
	}))
	b, err := schema.For(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"clock_skew"`, `"description": "clock_skew: Moves the system's clock."`, `"description": "Which way."`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema has no %s", want)
		}
	}
}
