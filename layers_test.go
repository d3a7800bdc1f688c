package arena_test

import (
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLayers: each layer imports only the layers below it, directly or
// through any other package of the module (go list -deps, read from the
// sources with the build tags of this machine). A package outside the
// layers that a layer imports (events, internal/…) must not reach a layer
// above it either.
func TestLayers(t *testing.T) {
	for _, l := range layers {
		deps := map[string]bool{}
		moduleDeps(t, module+"/"+l, deps)
		for d := range deps {
			if r, ok := level[strings.TrimPrefix(d, module+"/")]; ok && r >= level[l] && d != module+"/"+l {
				t.Errorf("%s imports %s (directly or through another package), a layer not below it", l, strings.TrimPrefix(d, module+"/"))
			}
			if d == module || strings.HasPrefix(d, module+"/fakes") || strings.HasPrefix(d, module+"/arenatest") {
				t.Errorf("%s imports %s, which stands above every layer", l, d)
			}
		}
	}
	// The root package is the layers' deprecated aliases: it imports them,
	// and nothing of the module imports it but the examples kept on the old
	// names.
	rootDeps := map[string]bool{}
	moduleDeps(t, module, rootDeps)
	for _, l := range layers[1:] {
		if !rootDeps[module+"/"+l] {
			t.Errorf("package arena does not import %s: is it an alias face any more?", l)
		}
	}
}

// moduleDeps adds to deps the module's packages that path imports, and
// theirs, from their non-test files.
func moduleDeps(t *testing.T, path string, deps map[string]bool) {
	t.Helper()
	dir := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	if dir == "" {
		dir = "."
	}
	p, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, imp := range p.Imports {
		if (imp == module || strings.HasPrefix(imp, module+"/")) && !deps[imp] {
			deps[imp] = true
			moduleDeps(t, imp, deps)
		}
	}
}

// TestMigrationTableListsEveryAlias: docs/migration/layers.md has a row for
// every deprecated alias of package arena, naming its new home as the
// alias does, and no row for a name the package does not have.
func TestMigrationTableListsEveryAlias(t *testing.T) {
	md, err := os.ReadFile("docs/migration/layers.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `arena\\.(\\w+)` \\| `([\\w.]+(?:\\(\\))?)` \\|$").FindAllStringSubmatch(string(md), -1) {
		rows[m[1]] = m[2]
	}
	aliases := map[string]string{}
	files, err := filepath.Glob("deprecated_*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`(?m)^// (\w+) is ([\w.]+(?:\(\))?)\.\n//\n// Deprecated: use ([\w.]+(?:\(\))?)[. ].*\n(?://.*\n)*(type|func|var|const) (\w+)`).FindAllStringSubmatch(string(src), -1) {
			if m[1] != m[5] || m[2] != m[3] {
				t.Errorf("%s: the alias %s says %s is %s and to use %s", f, m[5], m[1], m[2], m[3])
			}
			aliases[m[5]] = m[3]
		}
	}
	if len(aliases) < 300 {
		t.Fatalf("found %d aliases: the parse missed them", len(aliases))
	}
	for name, home := range aliases {
		if rows[name] != home {
			t.Errorf("layers.md: arena.%s is %q, want %q", name, rows[name], home)
		}
	}
	for name := range rows {
		if _, ok := aliases[name]; !ok {
			t.Errorf("layers.md lists arena.%s, which package arena does not have", name)
		}
	}
}
