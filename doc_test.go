package arena_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// layers are the packages of arena's layers, lowest first: each may import
// only those of lower levels (TestLayers: shrink and regression, side by
// side, import neither each other), and each package doc has an index of
// its API (TestDocIndexListsTheAPI).
var layers = []string{"internal/bound", "clock", "fault", "engine", "scenario", "shrink", "regression"}

// level is the height of a layer: 0 at the bottom.
var level = map[string]int{"internal/bound": 0, "clock": 1, "fault": 2, "engine": 3, "scenario": 4, "shrink": 5, "regression": 5}

// TestDocIndexListsTheAPI: the "# Index" of each layer's package doc and
// the package's exported names agree. Every exported constant, variable,
// function and type is in the index, and every name the index gives
// exists: a name added without its index line fails here, and so does one
// renamed or removed while the index still shows it.
//
// What the index need not list, by rule rather than by name: a typed
// constant that go doc shows under its type (fault.KillLeader under
// fault.Type, GradeA under Grade) when the index lists the type, and
// methods and fields, which go doc shows under their type. The index may
// still name a method or field as Type.Name; it must then exist.
func TestDocIndexListsTheAPI(t *testing.T) {
	for _, dir := range layers[1:] { // internal/bound is internal: no index
		t.Run(dir, func(t *testing.T) { checkDocIndex(t, dir) })
	}
}

func checkDocIndex(t *testing.T, dir string) {
	pkg := parsePackage(t, dir)
	index := docIndex(t, pkg.Doc)
	names := map[string]bool{}
	for _, w := range index {
		names[w] = true
	}

	exported := map[string]bool{} // every exported top-level name
	members := map[string]bool{}  // Type.Method and Type.Field
	var missing []string
	need := func(name string) {
		exported[name] = true
		if !names[name] {
			missing = append(missing, name)
		}
	}
	for _, v := range slices.Concat(pkg.Consts, pkg.Vars) {
		for _, n := range v.Names {
			need(n)
		}
	}
	for _, f := range pkg.Funcs {
		need(f.Name)
	}
	for _, typ := range pkg.Types {
		need(typ.Name)
		for _, c := range typ.Consts {
			for _, n := range c.Names {
				exported[n] = true
				if !names[n] && !names[typ.Name] {
					missing = append(missing, n)
				}
			}
		}
		for _, v := range typ.Vars {
			for _, n := range v.Names {
				need(n)
			}
		}
		for _, f := range typ.Funcs {
			need(f.Name)
		}
		for _, m := range typ.Methods {
			members[typ.Name+"."+m.Name] = true
		}
		if spec, ok := typ.Decl.Specs[0].(*ast.TypeSpec); ok {
			if st, ok := spec.Type.(*ast.StructType); ok {
				for _, f := range st.Fields.List {
					for _, n := range f.Names {
						members[typ.Name+"."+n.Name] = true
					}
				}
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("%s/doc.go's index lacks %d exported names: %s\n(add each to the index line of its concept)", dir, len(missing), strings.Join(missing, ", "))
	}
	var unknown []string
	for _, w := range index {
		if !exported[w] && !members[w] {
			unknown = append(unknown, w)
		}
	}
	if len(unknown) > 0 {
		t.Errorf("%s/doc.go's index names what the package does not export: %s", dir, strings.Join(unknown, ", "))
	}
	if len(exported) < 10 {
		t.Fatalf("found only %d exported names in %s: the parse missed the package", len(exported), dir)
	}
}

// parsePackage parses a package's non-test files, as go doc reads them.
func parsePackage(t *testing.T, dir string) *doc.Package {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, module+"/"+dir)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

const module = "github.com/ares-arena/arena"

// indexItem is one "  - Concept: Name, Name (Name, …), …" line of the
// index, with its continuation lines.
var indexItem = regexp.MustCompile(`(?m)^  - [A-Z][a-z]+:`)

// docIndex returns the Go names the index of a package doc gives (Name or
// Type.Name), in order: the capitalised words after each item's label.
func docIndex(t *testing.T, pkgDoc string) []string {
	t.Helper()
	_, index, ok := strings.Cut(pkgDoc, "\n# Index\n")
	if !ok {
		t.Fatal(`the package doc has no "# Index" section`)
	}
	if next := strings.Index(index, "\n# "); next >= 0 {
		index = index[:next]
	}
	index = indexItem.ReplaceAllString(index, "")
	var names []string
	for _, w := range regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?`).FindAllString(index, -1) {
		if w[0] >= 'A' && w[0] <= 'Z' {
			names = append(names, w)
		}
	}
	if len(names) == 0 {
		t.Fatal("the package doc's index names nothing")
	}
	return names
}

// TestEveryExampleHasOutput: go test runs an Example only when it has an
// output comment; one without is compiled and never run, so the claim it
// shows goes unchecked. Every Example in this repository, nested modules
// included, has one (a call that needs what go test cannot give, such as a
// Docker daemon or a *testing.T, is a test instead).
func TestEveryExampleHasOutput(t *testing.T) {
	fset := token.NewFileSet()
	seen := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !strings.Contains(string(src), "func Example") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, ex := range doc.Examples(f) {
			seen++
			if ex.Output == "" && !ex.EmptyOutput {
				t.Errorf("%s: Example%s has no // Output: comment, so go test never runs it: give it one, or make it a test", path, ex.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 20 {
		t.Fatalf("found only %d examples: the walk missed the repository", seen)
	}
}
