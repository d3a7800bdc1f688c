package schema_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenarios"
	"github.com/ares-arena/arena/schema"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestForBuiltinsIsTheShippedSchema(t *testing.T) {
	got, err := schema.For(fault.NewInjector(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(scenarios.Schema()), string(got)); diff != "" {
		t.Errorf("For(built-ins) differs from scenarios.Schema() (-want +got):\n%s", diff)
	}
}

func TestForKnowsTheServicesTypes(t *testing.T) {
	in := fault.NewInjectorFor(nil, fault.WithFault(fault.Spec{
		Type: "acme.clock_skew", Doc: "Moves the system's clock.", Target: fault.TargetSystem, Priority: 3, Fix: "f", Suggestion: "s",
		Inject:   func(context.Context, fault.Action, fault.Params) error { return nil },
		Metadata: []fault.MetaKey{{Name: "direction", Kind: fault.MetaKindString, Enum: []string{"ahead", "behind"}, Doc: "Which way."}},
	}))
	b, err := schema.For(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"acme.clock_skew"`, `"description": "acme.clock_skew: Moves the system's clock."`, `"description": "Which way."`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema has no %s", want)
		}
	}
}
