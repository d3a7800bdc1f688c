package arenahttp

import (
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ares-arena/arena/fault"
)

// docRoute is one line of the route list in the package doc:
// "POST /arena/agent/{id}/slow   slow_agent".
var docRoute = regexp.MustCompile(`(?m)^\t(GET|POST|PUT|PATCH|DELETE) +(/\S*) *(.*)$`)

// TestDocListsEveryRoute: the route list of the package doc (doc.go,
// "# Routes") and the handler's route table agree, as TestRoutes keeps the
// table and its tests together: every route the handler registers is
// listed, nothing is listed that it does not serve, and each fault route
// names its fault type first. A query in brackets ([?seed=n]) and a
// trailing wildcard ({asset...}) are not part of the comparison.
func TestDocListsEveryRoute(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	text := f.Doc.Text()
	_, routes, ok := strings.Cut(text, "\n# Routes\n")
	if !ok {
		t.Fatal(`doc.go has no "# Routes" section`)
	}
	routes, _, _ = strings.Cut(routes, "\n# ")
	listed := map[string]string{} // "METHOD /path" → what the line says of it
	for _, m := range docRoute.FindAllStringSubmatch(routes, -1) {
		path, _, _ := strings.Cut(m[2], "[")
		key := m[1] + " " + path
		if _, dup := listed[key]; dup {
			t.Errorf("doc.go lists %s twice", key)
		}
		listed[key] = m[3]
	}

	s := newSystem(t, systemConfig{})
	var served []string
	for _, rt := range s.h.routes() {
		key := rt.pattern
		if i := strings.LastIndex(key, "/{"); i >= 0 && strings.HasSuffix(key, "...}") {
			key = key[:i+1]
		}
		served = append(served, key)
		if slices.ContainsFunc(fault.Specs(), func(s fault.Spec) bool { return "POST "+s.Route == key }) {
			continue // a built-in's route: the doc gives the rule (fault.Spec.Route), the README the list
		}
		if _, ok := listed[key]; !ok {
			t.Errorf("doc.go's route list lacks %s, which the handler serves", rt.pattern)
		}
	}
	for key := range listed {
		if !slices.Contains(served, key) {
			t.Errorf("doc.go lists %s, which the handler does not serve", key)
		}
	}
	for _, spec := range fault.Specs() {
		if what, ok := listed["POST "+spec.Route]; ok && !strings.HasPrefix(what+" ", string(spec.Type)+" ") {
			t.Errorf("doc.go: POST %s says %q, want it to name %s first", spec.Route, what, spec.Type)
		}
	}
	if len(served) < 40 {
		t.Fatalf("the handler serves only %d routes: the table was not read", len(served))
	}
}
