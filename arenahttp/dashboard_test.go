package arenahttp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDashboardFiles: the page and everything it references are served
// without a key, with their type and a policy that keeps the page to its
// own origin; an unknown file is a JSON 404.
func TestDashboardFiles(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey)}})
	r := s.do(t, request{method: "GET", path: DashboardPath})
	if r.code != 200 || r.header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET %s = %d %q", DashboardPath, r.code, r.header.Get("Content-Type"))
	}
	for k, want := range map[string]string{"Content-Security-Policy": dashboardCSP, "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"} {
		if got := r.header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(string(r.body), -1)
	if len(refs) < 3 {
		t.Fatalf("index.html references %v, want its script, style sheet and icon", refs)
	}
	for _, m := range refs {
		ref := m[1]
		if ref == "data:," {
			continue
		}
		if strings.Contains(ref, ":") || strings.HasPrefix(ref, "/") {
			t.Errorf("index.html references %q: want a file beside it", ref)
			continue
		}
		r := s.do(t, request{method: "GET", path: DashboardPath + ref})
		if r.code != 200 || r.header.Get("Content-Type") != uiTypes[path.Ext(ref)] {
			t.Errorf("GET %s = %d %q", ref, r.code, r.header.Get("Content-Type"))
		}
	}
	for _, p := range []string{DashboardPath + "nope.js", DashboardPath + "index.htm"} {
		if r := s.do(t, request{method: "GET", path: p}); r.code != 404 {
			t.Errorf("GET %s = %d, want 404", p, r.code)
		} else {
			errorOf(t, r)
		}
	}
}

// TestDashboardLoadsNothingFromElsewhere: no file of the page names another
// host; the only absolute URL is the SVG namespace, which is never fetched.
// Every file has a content type (a new one without would be a 404).
func TestDashboardLoadsNothingFromElsewhere(t *testing.T) {
	url := regexp.MustCompile(`(?i)\b(?:https?:)?//[a-z0-9.-]+`)
	err := fs.WalkDir(uiFiles, "ui", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if _, ok := uiTypes[path.Ext(p)]; !ok {
			t.Errorf("%s: no content type for %s files (uiTypes)", p, path.Ext(p))
		}
		b, _ := fs.ReadFile(uiFiles, p)
		for _, u := range url.FindAllString(string(b), -1) {
			if u != "http://www.w3.org" {
				t.Errorf("%s names %s", p, u)
			}
		}
		if strings.Contains(string(b), "@import") || strings.Contains(string(b), "url(") {
			t.Errorf("%s imports a style or a resource", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDashboardKnowsEveryEventType: an EventSource hears only the event
// types it listens for, so the page lists each type the service sends
// (the engine's runs and regression's A/B tests). The list is read from
// those packages' source (their Event… constants), so a new type fails here
// until the page handles it.
func TestDashboardKnowsEveryEventType(t *testing.T) {
	var files []string
	for _, dir := range []string{"../engine", "../regression"} {
		got, err := filepath.Glob(dir + "/*.go")
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, got...)
	}
	var types []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Event") || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if v, _ := strconv.Unquote(lit.Value); strings.HasPrefix(v, "arena.") {
						types = append(types, v)
					}
				}
			}
			return true
		})
	}
	if len(types) < 8 {
		t.Fatalf("found event types %q in packages engine and regression, want at least the 8 known today", types)
	}
	js, _ := fs.ReadFile(uiFiles, "ui/app.js")
	m := regexp.MustCompile(`(?s)const EVENT_TYPES = \[(.*?)\]`).FindSubmatch(js)
	if m == nil {
		t.Fatal("app.js has no EVENT_TYPES list")
	}
	for _, typ := range types {
		if !strings.Contains(string(m[1]), "'"+typ+"'") {
			t.Errorf("app.js's EVENT_TYPES lack %s", typ)
		}
	}
	if !strings.Contains(string(js), "addEventListener('"+EventStreamGap+"'") {
		t.Errorf("app.js does not listen for %s", EventStreamGap)
	}
}

// TestDashboardMounted: a service that mounts the handler's routes on its
// own mux serves the page too.
func TestDashboardMounted(t *testing.T) {
	s := newSystem(t, systemConfig{})
	mux := http.NewServeMux()
	s.h.RegisterRoutes(mux)
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", DashboardPath, nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `<script src="app.js"`) {
		t.Errorf("GET %s on the user's mux = %d", DashboardPath, rec.Code)
	}
}
