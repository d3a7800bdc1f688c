package schemagen

import (
	"bytes"
	"encoding/json"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestGenerateIsDeterministic(t *testing.T) {
	a, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate()
	if !bytes.Equal(a, b) {
		t.Error("two generations differ")
	}
	if !bytes.HasSuffix(a, []byte("}\n")) {
		t.Error("no final newline")
	}
}

// Every property and definition carries a description: an editor shows it
// on hover, and a new field without one fails here.
func TestEveryPropertyIsDocumented(t *testing.T) {
	b, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var check func(path string, s map[string]any)
	check = func(path string, s map[string]any) {
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			ps, ok := p.(map[string]any)
			if !ok {
				continue // false: a field the type does not take
			}
			if _, isConst := ps["const"]; isConst {
				continue // the type test of a per-type rule
			}
			if d, _ := ps["description"].(string); d == "" {
				t.Errorf("%s.%s has no description", path, name)
			}
			check(path+"."+name, ps)
		}
		for _, sub := range []string{"allOf"} {
			list, _ := s[sub].([]any)
			for _, item := range list {
				rule, _ := item.(map[string]any)
				then, _ := rule["then"].(map[string]any)
				check(path+".then", then)
			}
		}
	}
	check("", doc)
	for name, def := range doc["$defs"].(map[string]any) {
		d := def.(map[string]any)
		if desc, _ := d["description"].(string); desc == "" {
			t.Errorf("$defs.%s has no description", name)
		}
		check(name, d)
	}
}
