package fault

// RefusalsOf returns why rt refuses each built-in type it does not land,
// as the injector reports it: the type's own reason (Refuser), else its
// scope's (ScopeRefuser). A type the runtime has the capability for lands
// whatever these say (see Injector.Unsupported).
func RefusalsOf(rt any) map[Type]string {
	out := map[Type]string{}
	if r, ok := rt.(ScopeRefuser); ok {
		scopes := r.RefusedScopes()
		for _, t := range builtins.order {
			if why, ok := scopes[builtins.byType[t].Scope]; ok {
				out[t] = why
			}
		}
	}
	if r, ok := rt.(Refuser); ok {
		for t, why := range r.Refusals() {
			out[t] = why
		}
	}
	return out
}
