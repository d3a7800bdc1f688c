package schemagen

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/ares-arena/arena/fault"
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

// The description of an action's metadata names every key of every type,
// with exactly the types that take it: the network keys and clock_jump's
// offset too, and a key of a user's own type in that type's schema.
func TestMetadataDocNamesEveryKey(t *testing.T) {
	user := fault.Spec{Type: "acme_brownout", Target: fault.TargetAgent,
		Metadata: []fault.MetaKey{{Name: "watts", Kind: fault.MetaKindNumber}}}
	for _, faults := range [][]fault.Spec{fault.Specs(), append(fault.Specs(), user)} {
		b, err := GenerateFor(faults)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Defs map[string]struct {
				Properties map[string]struct {
					Description string `json:"description"`
				} `json:"properties"`
			} `json:"$defs"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		text := doc.Defs["Action"].Properties["metadata"].Description
		_, list, ok := strings.Cut(text, ": ")
		if !ok {
			t.Fatalf("metadata description %q: no list", text)
		}
		got := map[string]string{} // key → the types the text gives it
		for _, group := range strings.Split(strings.TrimSuffix(list, "."), "; ") {
			keys, types, ok := strings.Cut(strings.TrimSuffix(group, ")"), " (")
			if !ok {
				t.Fatalf("metadata description %q: group %q is not keys (types)", text, group)
			}
			for _, k := range strings.Split(keys, ", ") {
				got[k] = types
			}
		}
		want := map[string]string{}
		for _, f := range faults {
			for _, k := range f.Metadata {
				want[k.Name] = strings.TrimPrefix(want[k.Name]+", "+string(f.Type), ", ")
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("metadata description %q: keys and their types (-want +got):\n%s", text, diff)
		}
		for _, k := range []string{fault.MetaLatency, fault.MetaJitter, fault.MetaDirection, fault.MetaPeer, fault.MetaRate, fault.MetaAfter, fault.MetaOffset} {
			if got[k] == "" {
				t.Errorf("metadata description %q lacks %s", text, k)
			}
		}
	}
}
