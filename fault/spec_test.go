package fault

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// specPart is one part every built-in spec must have: how to tell it is
// there, and how to take it out of a copy (to show the check notices).
type specPart struct {
	name    string
	missing func(s Spec) bool
	remove  func(s *Spec)
}

// specParts are the parts of a built-in's spec that the consumers read:
// validation (target, role, metadata), dispatch (capability, and the scope
// runtimes refuse it by), lifting, the
// flight bridge (category, fix), the evolution bridge (priority,
// suggestion), the HTTP route and the JSON Schema (doc, metadata docs).
var specParts = []specPart{
	{"doc", func(s Spec) bool { return strings.TrimSpace(s.Doc) == "" }, func(s *Spec) { s.Doc = "" }},
	{"scope", func(s Spec) bool {
		// a DAG fault acts on the DAG, and only a DAG fault does
		return !slices.Contains(Scopes(), s.Scope) || (s.Scope == ScopeDAG) != s.capability.dag
	}, func(s *Spec) { s.Scope = "" }},
	{"target", func(s Spec) bool {
		return !slices.Contains([]TargetRule{TargetSystem, TargetRole, TargetAgent, TargetNode, TargetEdge}, s.Target)
	}, func(s *Spec) { s.Target = "" }},
	{"role", func(s Spec) bool { return (s.Target == TargetRole) != (s.Role != "") }, func(s *Spec) {
		if s.Role != "" {
			s.Role = ""
		} else {
			s.Role = TypeWorker
		}
	}},
	{"metadata docs", func(s Spec) bool {
		return slices.ContainsFunc(s.Metadata, func(k MetaKey) bool { return k.Doc == "" })
	}, func(s *Spec) {
		s.Metadata = append(slices.Clone(s.Metadata), MetaKey{Name: "undocumented", Kind: MetaKindString})
	}},
	{"lift", func(s Spec) bool {
		// A type arena lifts has a duration, and its capability hands back
		// the Lift; one it does not lift has neither.
		k, ok := s.metaKey(MetaDuration)
		return s.Lifts != (ok && k.Kind == MetaKindDuration) || s.Lifts != s.capability.lifts
	}, func(s *Spec) { s.Lifts = !s.Lifts }},
	{"capability", func(s Spec) bool {
		c := s.capability
		return c.name == "" || c.has == nil || c.land == nil || c.dag != (s.Target == TargetNode || s.Target == TargetEdge)
	}, func(s *Spec) { s.capability = capability{} }},
	{"route", func(s Spec) bool { return !strings.HasPrefix(s.Route, "/arena/") }, func(s *Spec) { s.Route = "" }},
	{"category", func(s Spec) bool { return s.Category != CategoryRuntime && s.Category != CategoryDAG }, func(s *Spec) { s.Category = "" }},
	{"fix", func(s Spec) bool { return strings.TrimSpace(s.Fix) == "" }, func(s *Spec) { s.Fix = "" }},
	{"priority", func(s Spec) bool { return s.Priority < 1 || s.Priority > 10 }, func(s *Spec) { s.Priority = 0 }},
	{"suggestion", func(s Spec) bool { return strings.TrimSpace(s.Suggestion) == "" }, func(s *Spec) { s.Suggestion = "" }},
}

// missingParts names the parts s lacks.
func missingParts(s Spec) []string {
	var out []string
	for _, p := range specParts {
		if p.missing(s) {
			out = append(out, p.name)
		}
	}
	return out
}

// TestBuiltinSpecsComplete: every built-in type has every part, in the
// order of Types, with a route of its own.
func TestBuiltinSpecsComplete(t *testing.T) {
	var types []Type
	routes := map[string]Type{}
	for _, s := range Specs() {
		types = append(types, s.Type)
		if m := missingParts(s); len(m) > 0 {
			t.Errorf("%s: missing %s", s.Type, strings.Join(m, ", "))
		}
		if err := s.checkShape(); err != nil {
			t.Errorf("%s: %v", s.Type, err)
		}
		if other, dup := routes[s.Route]; dup {
			t.Errorf("%s: route %s is also %s's", s.Type, s.Route, other)
		}
		routes[s.Route] = s.Type
	}
	if diff := cmp.Diff(Types(), types); diff != "" {
		t.Errorf("FaultSpecs types differ from ActionTypes (-want +got):\n%s", diff)
	}
}

// TestCompletenessNoticesAMissingPart removes each part from a copy of each
// built-in spec: the completeness check must name it.
func TestCompletenessNoticesAMissingPart(t *testing.T) {
	for _, s := range Specs() {
		for _, p := range specParts {
			c := s
			p.remove(&c)
			if !slices.Contains(missingParts(c), p.name) {
				t.Errorf("%s without its %s: completeness check passes, want it to name %q", s.Type, p.name, p.name)
			}
		}
	}
}

func TestFaultSpecCheck(t *testing.T) {
	noop := func(context.Context, Action, Params) error { return nil }
	good := Spec{Type: "acme.disk_full", Target: TargetAgent, Inject: noop, Priority: 5, Fix: "f", Suggestion: "s",
		Metadata: []MetaKey{{Name: "percent", Kind: MetaKindNumber, Default: 100}, {Name: MetaDuration, Kind: MetaKindDuration}}, Lifts: true}
	if err := good.Check(); err != nil {
		t.Fatalf("Check(good) = %v, want nil", err)
	}
	tests := []struct {
		change func(*Spec)
		want   string
	}{
		{func(s *Spec) { s.Type = "Disk Full" }, `fault "Disk Full": Type: want lower case`},
		{func(s *Spec) { s.Type = KillAgent }, "fault kill_agent: Type: the name of a built-in type"},
		{func(s *Spec) { s.Target = "cluster" }, `fault acme.disk_full: Target: unknown rule "cluster"`},
		{func(s *Spec) { s.Target = TargetRole }, "fault acme.disk_full: Role: missing for TargetRole"},
		{func(s *Spec) { s.Role = "db" }, "fault acme.disk_full: Role: only for TargetRole"},
		{func(s *Spec) { s.Inject = nil }, "fault acme.disk_full: Inject: missing"},
		{func(s *Spec) { s.Priority = 11 }, "fault acme.disk_full: Priority: 11 is not in 1–10"},
		{func(s *Spec) { s.Fix = " " }, "fault acme.disk_full: Fix: missing"},
		{func(s *Spec) { s.Suggestion = "" }, "fault acme.disk_full: Suggestion: missing"},
		{func(s *Spec) { s.Metadata = nil }, `fault acme.disk_full: Lifts needs a MetaKindDuration key "duration"`},
		{func(s *Spec) { s.Lifts, s.Lift = false, func(context.Context, Action) error { return nil } }, "fault acme.disk_full: Lift given but Lifts is false"},
		{func(s *Spec) { s.Metadata = append(s.Metadata, MetaKey{Name: "percent", Kind: MetaKindNumber}) }, `fault acme.disk_full: Metadata[2].Name: "percent" given twice`},
		{func(s *Spec) { s.Metadata = []MetaKey{{Name: "x", Kind: "bool"}} }, `fault acme.disk_full: Metadata[0].Kind: unknown kind "bool"`},
		{func(s *Spec) { s.Metadata = []MetaKey{{Name: "x", Kind: MetaKindNumber, Enum: []string{"a"}}} }, "fault acme.disk_full: Metadata[0].Enum: only for MetaKindString"},
		{func(s *Spec) { s.Metadata[0].Default = "full" }, "fault acme.disk_full: Metadata[0].Default: want a number, got string"},
	}
	for _, tt := range tests {
		s := good
		s.Metadata = slices.Clone(good.Metadata)
		tt.change(&s)
		if err := s.Check(); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Check() = %v, want %q", err, tt.want)
		}
	}
	for _, s := range Specs() {
		if err := s.Check(); err == nil {
			t.Errorf("Check(%s) = nil, want an error: a built-in cannot be registered", s.Type)
		}
	}
}

func TestMetadataKinds(t *testing.T) {
	in := NewInjectorFor(nil, WithFault(Spec{
		Type: "acme.clock_skew", Target: TargetSystem, Priority: 3, Fix: "f", Suggestion: "s",
		Inject: func(context.Context, Action, Params) error { return nil },
		Metadata: []MetaKey{
			{Name: "offset", Kind: MetaKindDuration, Positive: true, Default: "1s"},
			{Name: "direction", Kind: MetaKindString, Enum: []string{"ahead", "behind"}, Default: "ahead"},
			{Name: "drift", Kind: MetaKindNumber, Check: func(v any) error {
				if v.(float64) > 1 {
					return errors.New("at most 1")
				}
				return nil
			}},
		},
	}))
	p, err := in.faults.Params(Action{Type: "acme.clock_skew", Metadata: map[string]any{"drift": 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"offset": time.Second, "direction": "ahead", "drift": 0.5}
	if diff := cmp.Diff(want, p.Values); diff != "" {
		t.Errorf("Values (-want +got):\n%s", diff)
	}
	for meta, msg := range map[string]string{
		`{"offset": 0}`:             "metadata.offset: must be positive (want 1ns to 24h)",
		`{"direction": "sideways"}`: `metadata.direction: unknown direction "sideways" (want one of ahead, behind)`,
		`{"drift": 2}`:              "metadata.drift: at most 1",
		`{"drift": -1}`:             "metadata.drift: negative number -1 (want 0 to 9007199254740992)",
		`{"drift": "lots"}`:         "metadata.drift: want a number, got string",
		`{"skew": 1}`:               "metadata.skew: unknown key for acme.clock_skew (want offset, direction, drift)",
	} {
		a := Action{Type: "acme.clock_skew", Metadata: jsonMap(t, meta)}
		if err := in.Validate(a); err == nil || err.Error() != msg {
			t.Errorf("Validate(%s) = %v, want %q", meta, err, msg)
		}
	}
	if err := in.Validate(Action{Type: "acme.clock_skew", TargetID: "x"}); err == nil || err.Error() != "target_id: acme.clock_skew takes no target_id: it hits the system as a whole" {
		t.Errorf("Validate(with a target) = %v", err)
	}
	if err := (Action{Type: "acme.clock_skew"}).Validate(); err == nil || !strings.Contains(err.Error(), `unknown action type "acme.clock_skew"`) {
		t.Errorf("Action.Validate knows the built-ins only, got %v", err)
	}
}

func jsonMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// FuzzMetaKeyDecode: any JSON value, decoded as each metadata kind, is
// refused with an error or accepted within the kind's promises.
func FuzzMetaKeyDecode(f *testing.F) {
	for _, s := range []string{`"1.5s"`, `3`, `-1`, `0`, `1e400`, `"ahead"`, `true`, `null`, `[1]`, `"NaN"`, `9007199254740993`} {
		f.Add(s)
	}
	keys := []MetaKey{
		{Name: "d", Kind: MetaKindDuration, Positive: true},
		{Name: "s", Kind: MetaKindString, Enum: []string{"ahead", "behind"}},
		{Name: "n", Kind: MetaKindNumber},
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		for _, k := range keys {
			got, err := k.decode(v)
			if err != nil {
				continue
			}
			switch x := got.(type) {
			case time.Duration:
				if k.Kind != MetaKindDuration || x <= 0 {
					t.Errorf("%s: decode(%s) = %v", k.Kind, raw, x)
				}
			case string:
				if k.Kind != MetaKindString || !slices.Contains(k.Enum, x) {
					t.Errorf("%s: decode(%s) = %q", k.Kind, raw, x)
				}
			case float64:
				if k.Kind != MetaKindNumber || x < 0 || x != x || x > 1e300 {
					t.Errorf("%s: decode(%s) = %v", k.Kind, raw, x)
				}
			default:
				t.Errorf("%s: decode(%s) = %v (%T)", k.Kind, raw, got, got)
			}
		}
	})
}
