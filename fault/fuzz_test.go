package fault

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// fuzzFieldPrefixes are what a ValidationError's Field may start with.
var fuzzFieldPrefixes = []string{"type", "target_id", "source_id", "metadata."}

func FuzzActionValidate(f *testing.F) {
	type seed struct {
		typ, target, source, key, sval string
		fval                           float64
	}
	for _, s := range []seed{
		{"kill_leader", "", "", "", "", 0},
		{"kill_agent", "worker-1", "", "", "", 0},
		{"slow_agent", "random", "", "delay", "250ms", 2},
		{"slow_agent", "w", "", "dealy", "2s", 2},
		{"pause_agent", "type:worker", "", "duration", "-1s", -2},
		{"tool_timeout", "w", "", "timeout", "0", 0},
		{"llm_failure", "w", "", "error_type", "overloaded", 429},
		{"llm_failure", "w", "", "error_type", "quota", 1},
		{"remove_edge", "b", "a", "", "", 0},
		{"remove_edge", "b", "type:x", "", "", 0},
		{"remove_node", "type:", "", "", "", 0},
		{"network_partition", "w 1", "", "duration", "soon", 1e300},
		{"mcp_disconnect", "w", "", "duration", "9223372036.854775807", 9223372036.854775807},
		{"kill_orchestrator", "x", "y", "z", "", 0},
		{"", "", "", "", "", 0},
		{"nope", "w", "", "", "", 0},
		{"kill_agent", strings.Repeat("w", 257), "", "", "", 0},
		{"pause_agent", "w\u00a0", "", "", "", 0},
	} {
		f.Add(s.typ, s.target, s.source, s.key, s.sval, s.fval)
	}
	f.Fuzz(func(t *testing.T, typ, target, source, key, sval string, fval float64) {
		base := Action{Type: Type(typ), TargetID: target, SourceID: source}
		actions := []Action{base}
		for _, v := range []any{sval, fval} {
			a := base
			a.Metadata = map[string]any{key: v}
			actions = append(actions, a)
		}
		for _, a := range actions {
			p, err := a.Params()
			if verr := a.Validate(); (verr == nil) != (err == nil) {
				t.Fatalf("Validate(%+v) = %v but Params error = %v", a, verr, err)
			}
			if err != nil {
				checkFuzzValidationError(t, a, err)
				continue
			}
			checkFuzzValidAction(t, a, p)
		}
	})
}

func checkFuzzValidationError(t *testing.T, a Action, err error) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate(%+v) = %v (%T), want a *ValidationError", a, err, err)
	}
	if !errors.Is(err, ErrInvalidAction) {
		t.Errorf("errors.Is(%v, ErrInvalidAction) = false, want true", err)
	}
	if ve.Field == "" || !slices.ContainsFunc(fuzzFieldPrefixes, func(p string) bool {
		return strings.HasPrefix(ve.Field, p)
	}) {
		t.Errorf("Validate(%+v).Field = %q, want one starting with one of %q", a, ve.Field, fuzzFieldPrefixes)
	}
	if ve.Msg == "" {
		t.Errorf("Validate(%+v).Msg is empty", a)
	}
	if err.Error() != ve.Field+": "+ve.Msg {
		t.Errorf("Validate(%+v) = %q, want %q", a, err, ve.Field+": "+ve.Msg)
	}
}

// checkFuzzValidAction checks what an accepted action promises the injector.
func checkFuzzValidAction(t *testing.T, a Action, p Params) {
	t.Helper()
	if !a.Type.Valid() {
		t.Errorf("Validate(%+v) = nil for an unknown type", a)
	}
	if p.Duration < 0 || p.Delay <= 0 || p.Timeout <= 0 {
		t.Errorf("Params(%+v) = %+v, want duration ≥ 0 and positive delay and timeout", a, p)
	}
	if !slices.Contains(LLMErrorTypes(), p.ErrorType) {
		t.Errorf("Params(%+v).ErrorType = %q, want one of %q", a, p.ErrorType, LLMErrorTypes())
	}
	for k := range a.Metadata {
		if !slices.Contains(a.Type.MetadataKeys(), k) {
			t.Errorf("Validate(%+v) = nil with metadata key %q, want only %q", a, k, a.Type.MetadataKeys())
		}
	}
	for _, id := range []string{a.TargetID, a.SourceID} {
		if strings.ContainsFunc(id, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) || len(id) > 256 {
			t.Errorf("Validate(%+v) = nil with id %q", a, id)
		}
	}
	switch {
	case a.Type == KillLeader || a.Type == KillOrchestrator:
		if a.TargetID != "" || a.SourceID != "" {
			t.Errorf("Validate(%+v) = nil with a target for %s", a, a.Type)
		}
	case a.Type == RemoveEdge:
		if a.TargetID == "" || a.SourceID == "" {
			t.Errorf("Validate(%+v) = nil for an edge without both ends", a)
		}
	default:
		if a.TargetID == "" || a.SourceID != "" {
			t.Errorf("Validate(%+v) = nil, want a target_id and no source_id", a)
		}
	}
	if a.Type.NeedsDAG() && strings.HasPrefix(a.TargetID, "type:") {
		t.Errorf("Validate(%+v) = nil with a type selector on a DAG action", a)
	}
}
