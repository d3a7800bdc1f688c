package fault

import (
	"errors"
	"strings"
)

// Registry is the fault types one injector, or one validation, knows: the
// built-ins, then the user's in registration order (WithFault). It is
// never written after it is made, so it is safe for concurrent use.
// NewRegistry makes one; Injector.Registry returns an injector's.
type Registry struct {
	byType map[Type]*Spec // never written after newFaultSet
	order  []Type
}

func newFaultSet(specs ...Spec) *Registry {
	fs := &Registry{byType: map[Type]*Spec{}}
	for _, s := range specs {
		if _, dup := fs.byType[s.Type]; !dup {
			fs.order = append(fs.order, s.Type)
		}
		fs.byType[s.Type] = &s
	}
	return fs
}

// NewRegistry returns the built-in fault types followed by extra, the
// user's own (as given to WithFault), for validating actions and
// scenarios without an injector. A spec in extra with a built-in's name
// is left out, as an injector refuses it (ErrBuiltinName): the built-in
// stays (so an injector's FaultTypes, built-ins included, may be passed
// whole). One that fails Check, or a name given twice, panics, as with
// WithFault: it is a programming error.
func NewRegistry(extra ...Spec) *Registry {
	var own []Spec
	seen := map[Type]bool{}
	for _, s := range extra {
		if _, builtin := builtins.Lookup(s.Type); builtin {
			continue
		}
		if err := s.Check(); err != nil {
			panic("arena: NewRegistry: " + err.Error())
		}
		if seen[s.Type] {
			panic("arena: NewRegistry: fault " + string(s.Type) + " given twice")
		}
		seen[s.Type] = true
		own = append(own, s)
	}
	return builtins.with(own)
}

// Len returns the number of types in the registry.
func (fs *Registry) Len() int { return len(fs.order) }

// with returns the set plus extra (nil extra: the set alone).
func (fs *Registry) with(extra []Spec) *Registry {
	if len(extra) == 0 {
		return fs
	}
	all := make([]Spec, 0, len(fs.order)+len(extra))
	for _, t := range fs.order {
		all = append(all, *fs.byType[t])
	}
	return newFaultSet(append(all, extra...)...)
}

// Lookup returns the set's own spec of t, not a copy: read it, never write
// it.
func (fs *Registry) Lookup(t Type) (*Spec, bool) {
	s, ok := fs.byType[t]
	return s, ok
}

// Specs returns a copy of every spec of the registry, in its order.
func (fs *Registry) Specs() []Spec {
	out := make([]Spec, len(fs.order))
	for i, t := range fs.order {
		out[i] = *fs.byType[t]
	}
	return out
}

// Problems is Params reporting every problem of a instead of the first:
// the type, else the target and each metadata key (a scenario's validation
// lists them all).
func (fs *Registry) Problems(a Action) []*ValidationError {
	var out []*ValidationError
	collect := func(err error) {
		var ve *ValidationError
		if errors.As(err, &ve) {
			out = append(out, ve)
		}
	}
	spec, ok := fs.Lookup(a.Type)
	if !ok {
		_, err := fs.Params(a)
		collect(err)
		return out
	}
	collect(a.validateTarget(spec))
	for _, key := range sortedKeys(a.Metadata) {
		one := Action{Type: a.Type, Metadata: map[string]any{key: a.Metadata[key]}}
		_, err := one.decodeMetadata(spec)
		collect(err)
	}
	return out
}

// Names names the types, comma-separated, for "want one of …" messages.
func (fs *Registry) Names() string {
	names := make([]string, len(fs.order))
	for i, t := range fs.order {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// Params validates a against the set and decodes its metadata.
func (fs *Registry) Params(a Action) (Params, error) {
	spec, ok := fs.Lookup(a.Type)
	if !ok {
		if a.Type == "" {
			return Params{}, Invalid("type", "missing")
		}
		return Params{}, Invalid("type", "unknown action type %q (want one of %s)", a.Type, fs.Names())
	}
	return a.paramsFor(spec)
}
