// Package schemagen generates the JSON Schema of arena scenario files from
// arena's Go types (with github.com/invopop/jsonschema), so that the schema
// cannot drift from what scenario.Load accepts. `make schema` writes it
// to scenarios/scenario.schema.json; a test in package scenarios keeps the
// shipped file equal to Generate's output.
//
// Reflection gives the structure: keys (the yaml tags), types, required
// fields and additionalProperties false everywhere. On top of it Generate
// adds what Go types cannot say: the one encoding of durations, the grade and
// action type enums, value ranges, and, per action type, which of target_id
// and source_id it needs and which metadata keys it takes. Those per-type
// rules are read from the types' fault.Spec, as fault.Action.Validate
// reads them, so the two cannot drift; GenerateFor takes a service's own
// set of types (fault.Injector.FaultTypes). The schema serves editors; the
// loader stays the authority (cross-field rules such as unique labels,
// dependencies and cycles are its alone).
package schemagen

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// ID is the schema's $id.
const ID = "https://github.com/ares-arena/arena/scenarios/scenario.schema.json"

// Generate returns the schema of scenarios of the built-in fault types as
// indented JSON with a final newline.
func Generate() ([]byte, error) { return GenerateFor(fault.Specs()) }

// GenerateFor returns the schema of scenarios whose actions are of the
// given types (a service's: fault.Injector.FaultTypes).
func GenerateFor(faults []fault.Spec) ([]byte, error) {
	r := &jsonschema.Reflector{
		FieldNameTag:   "yaml",
		ExpandedStruct: true,
		Anonymous:      true,
		Mapper:         mapType,
		Namer:          defName,
		LookupComment: func(t reflect.Type, field string) string {
			if field == "" {
				return docs[defName(t)]
			}
			return docs[defName(t)+"."+field]
		},
	}
	s := r.Reflect(&scenario.Scenario{})
	s.ID = ID
	s.Title = "arena scenario"
	defs := s.Definitions
	defs["Duration"] = durationSchema()
	defs["Grade"] = enumSchema(docs["Grade"], "A+", "A", "B", "C", "D", "F", "a+", "a", "b", "c", "d", "f")
	var types []string
	for _, f := range faults {
		types = append(types, string(f.Type))
	}
	defs["ActionType"] = enumSchema(docs["ActionType"], types...)

	prop(s, "name").MinLength = ptr(uint64(1))
	prop(s, "tags").Items.MinLength = ptr(uint64(1))
	prop(s, "actions").MinItems = ptr(uint64(1))
	prop(s, "actions").MaxItems = ptr(uint64(scenario.MaxSteps))

	cfg, step, action, gate := defs["ScenarioConfig"], defs["ScenarioStep"], defs["Action"], defs["Gate"]
	if cfg == nil || step == nil || action == nil || gate == nil {
		return nil, errors.New("schemagen: a scenario type was not reflected")
	}
	prop(cfg, "max_concurrent").Minimum = "0"
	prop(cfg, "max_concurrent").Maximum = json.Number(strconv.Itoa(scenario.MaxSteps))
	prop(cfg, "seed").Minimum = "0"
	durationIn(prop(cfg, "timeout"), 0, scenario.MaxTimeout)
	durationIn(prop(cfg, "warmup"), 0, scenario.MaxLength)
	durationIn(prop(cfg, "cooldown"), 0, scenario.MaxLength)
	prop(step, "label").MinLength = ptr(uint64(1))
	prop(step, "depends_on").Items.MinLength = ptr(uint64(1))
	prop(step, "depends_on").UniqueItems = true
	durationIn(prop(step, "delay"), 0, scenario.MaxLength)
	prop(gate, "min_score").Minimum = "0"
	prop(gate, "min_score").Maximum = "100"
	durationIn(prop(gate, "max_mttr"), 0, engine.MaxObserveWindow)
	observe, abort := defs["ScenarioObserve"], defs["AbortWhen"]
	if observe == nil || abort == nil {
		return nil, errors.New("schemagen: a scenario type was not reflected")
	}
	durationIn(prop(abort, "unhealthy_for"), 0, scenario.MaxLength)
	var o engine.ObserveOptions
	for _, st := range o.Settings() {
		for _, p := range []*jsonschema.Schema{optional(observe, st.Name), optional(cfg, st.Name)} {
			switch {
			case p == nil:
			case st.Duration != nil:
				durationIn(p, 0, time.Duration(st.Max))
				p.Description += " 0 or left out: the default; a value set is at least " + time.Duration(st.Min).String() + "."
			default:
				p.Minimum, p.Maximum = "0", json.Number(strconv.FormatInt(st.Max, 10))
			}
		}
	}

	action.Properties.Delete("id") // the engine's: scenario steps have labels
	prop(action, "metadata").Description = metadataDoc(faults)
	for _, name := range []string{"target_id", "source_id"} {
		prop(action, name).MinLength = ptr(uint64(1))
		prop(action, name).MaxLength = ptr(uint64(256))
	}
	for _, f := range faults {
		action.AllOf = append(action.AllOf, perType(f))
	}

	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// defNames keep the schema's definitions under the names they have always
// had, whatever the Go types are called in the packages that hold them
// now: the schema is a wire format, and editors cache it.
var defNames = map[reflect.Type]string{
	reflect.TypeFor[scenario.Config]():  "ScenarioConfig",
	reflect.TypeFor[scenario.Step]():    "ScenarioStep",
	reflect.TypeFor[scenario.Observe](): "ScenarioObserve",
	reflect.TypeFor[fault.Type]():       "ActionType",
}

// defName names t's definition in the schema.
func defName(t reflect.Type) string {
	if n, ok := defNames[t]; ok {
		return n
	}
	return t.Name()
}

// mapType replaces arena's scalar types by references to their definitions.
// It returns a fresh schema each time: the reflector sets descriptions on it.
func mapType(t reflect.Type) *jsonschema.Schema {
	switch t {
	case reflect.TypeFor[clock.Duration]():
		return &jsonschema.Schema{Ref: "#/$defs/Duration"}
	case reflect.TypeFor[engine.Grade]():
		return &jsonschema.Schema{Ref: "#/$defs/Grade"}
	case reflect.TypeFor[fault.Type]():
		return &jsonschema.Schema{Ref: "#/$defs/ActionType"}
	}
	return nil
}

// goDuration matches what time.ParseDuration accepts without a sign; a
// string of a plain number is seconds, as a bare number is.
const goDuration = `^(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$|^0$|^[0-9]+(\.[0-9]+)?$`

func durationSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: docs["Duration"],
		AnyOf: []*jsonschema.Schema{
			{Type: "string", Pattern: goDuration},
			{Type: "number", Minimum: "0"},
		},
	}
}

func enumSchema(desc string, values ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string", Description: desc}
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
	return s
}

// perType says, for one action type, which target fields it needs or
// refuses and which metadata keys it takes, as its spec says.
func perType(f fault.Spec) *jsonschema.Schema {
	t := string(f.Type)
	var then jsonschema.Schema
	then.Properties = jsonschema.NewProperties()
	switch f.Target {
	case fault.TargetRole, fault.TargetSystem:
		then.Properties.Set("target_id", jsonschema.FalseSchema)
		then.Properties.Set("source_id", jsonschema.FalseSchema)
	case fault.TargetEdge:
		then.Required = []string{"source_id", "target_id"}
	default:
		then.Required = []string{"target_id"}
		then.Properties.Set("source_id", jsonschema.FalseSchema)
	}
	if len(f.Metadata) == 0 {
		then.Properties.Set("metadata", &jsonschema.Schema{Type: "object", MaxProperties: ptr(uint64(0)),
			Description: t + " takes no metadata."})
	} else {
		var names []string
		meta := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), AdditionalProperties: jsonschema.FalseSchema}
		for _, k := range f.Metadata {
			names = append(names, k.Name)
			meta.Properties.Set(k.Name, metaSchema(k))
		}
		meta.Description = "Metadata of " + t + ": " + strings.Join(names, ", ") + "."
		then.Properties.Set("metadata", meta)
	}
	ifs := &jsonschema.Schema{Properties: jsonschema.NewProperties(), Required: []string{"type"}}
	ifs.Properties.Set("type", &jsonschema.Schema{Const: t})
	return &jsonschema.Schema{If: ifs, Then: &then, Description: t + ": " + f.Doc}
}

// metadataDoc describes an action's metadata: each key the types take,
// with the types that take it, read from their specs (keys that the same
// types take are grouped): "Per-type parameters: duration (pause_agent,
// slow_agent, …); delay (slow_agent); …". The per-type rules say what each
// key means.
func metadataDoc(faults []fault.Spec) string {
	var keys []string
	takers := map[string][]string{}
	for _, f := range faults {
		for _, k := range f.Metadata {
			if _, seen := takers[k.Name]; !seen {
				keys = append(keys, k.Name)
			}
			takers[k.Name] = append(takers[k.Name], string(f.Type))
		}
	}
	if len(keys) == 0 {
		return "Per-type parameters: none of these types takes any."
	}
	var groups []string
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && slices.Equal(takers[keys[j]], takers[keys[i]]) {
			j++
		}
		groups = append(groups, strings.Join(keys[i:j], ", ")+" ("+strings.Join(takers[keys[i]], ", ")+")")
		i = j
	}
	return "Per-type parameters, each checked against the type's own (its rule says what they mean): " + strings.Join(groups, "; ") + "."
}

// metaSchema is the schema of one metadata value.
func metaSchema(k fault.MetaKey) *jsonschema.Schema {
	var v *jsonschema.Schema
	switch k.Kind {
	case fault.MetaKindDuration:
		v = &jsonschema.Schema{Ref: "#/$defs/Duration"}
	case fault.MetaKindString:
		v = &jsonschema.Schema{Type: "string"}
		for _, e := range k.Enum {
			v.Enum = append(v.Enum, e)
		}
	default:
		v = &jsonschema.Schema{Type: "number", Minimum: "0"}
		lo, hi := k.Range()
		if k.Positive && k.Min == nil {
			v.Minimum, v.ExclusiveMinimum = "", "0"
		} else {
			v.Minimum = number(lo.(float64))
		}
		v.Maximum = number(hi.(float64))
	}
	v.Description = k.Doc
	if v.Description == "" {
		v.Description = string(k.Kind) + "."
	}
	switch k.Kind {
	case fault.MetaKindDuration:
		lo, hi := k.Range()
		durationIn(v, lo.(time.Duration), hi.(time.Duration))
	case fault.MetaKindString:
		if len(k.Enum) == 0 {
			n := k.MaxLen
			if n == 0 {
				n = fault.MaxMetaString
			}
			v.MaxLength = ptr(uint64(n))
		}
	}
	return v
}

// durationIn makes p a duration in the range lo to hi: the number form is
// bounded (in seconds), and the description says the range, which the
// string form cannot express.
func durationIn(p *jsonschema.Schema, lo, hi time.Duration) {
	p.Ref = ""
	p.AnyOf = []*jsonschema.Schema{
		{Type: "string", Pattern: goDuration},
		{Type: "number", Minimum: number(lo.Seconds()), Maximum: number(hi.Seconds())},
	}
	p.Description = strings.TrimSuffix(p.Description, ".") + ". A duration from " + lo.String() + " to " + hi.String() + "."
}

func number(f float64) json.Number {
	return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
}

// optional is prop for a property that s may not have (nil then).
func optional(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p, _ := s.Properties.Get(name)
	return p
}

func prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p, ok := s.Properties.Get(name)
	if !ok {
		panic("schemagen: no property " + name) // the Go types changed: update Generate
	}
	return p
}

func ptr[T any](v T) *T { return &v }
