package engine

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runtimeDirs are the runtimes of this repository (and the reference agent
// and examples that play one): the code arena calls while a run holds the
// service. kube and the examples' own modules are read as files; they need
// not build here.
var runtimeDirs = []string{"../agentwire", "../fakes", "../netfault", "../sim", "../containers", "../kube", "../cmd/agentd", "../examples", "../internal/netrules"}

// A runtime that panics while it holds a mutex must not keep it for good: a
// jitter that overflowed inside the fakes' lock wedged every later call and
// with them the service (issue 26). So in every runtime a Lock (or RLock)
// is followed at once by a defer, which releases it however the function
// ends, or the statements up to its Unlock call nothing but builtins: no
// call that may panic runs under a lock released by hand.
func TestRuntimesHoldNoLockAcrossACall(t *testing.T) {
	fset := token.NewFileSet()
	var bad []string
	files := 0
	for _, dir := range runtimeDirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			files++
			bad = append(bad, callsUnderLock(fset, f)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 50 {
		t.Fatalf("read %d runtime files, want the runtimes' sources (%v)", files, runtimeDirs)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// callsUnderLock lists the Lock statements of f whose Unlock is neither
// deferred at once nor reached without a call in between.
func callsUnderLock(fset *token.FileSet, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		var list []ast.Stmt
		switch b := n.(type) {
		case *ast.BlockStmt:
			list = b.List
		case *ast.CaseClause:
			list = b.Body
		case *ast.CommClause:
			list = b.Body
		default:
			return true
		}
		for i, st := range list {
			mu, ok := lockCall(st)
			if !ok {
				continue
			}
			if i+1 < len(list) {
				if _, ok := list[i+1].(*ast.DeferStmt); ok {
					continue
				}
			}
			call, unlocked := regionCall(list[i+1:], mu)
			switch {
			case call != nil:
				out = append(out, fmt.Sprintf("%s: %s is called while %s, locked at line %d, is held (defer the Unlock, or call it after)",
					fset.Position(call.Pos()), types.ExprString(call.Fun), mu, fset.Position(st.Pos()).Line))
			case !unlocked:
				out = append(out, fmt.Sprintf("%s: %s is locked and not unlocked in the same block (defer the Unlock)", fset.Position(st.Pos()), mu))
			}
		}
		return true
	})
	return out
}

// lockCall reports whether st is X.Lock() or X.RLock(), and X.
func lockCall(st ast.Stmt) (string, bool) {
	return methodCall(st, "Lock", "RLock")
}

func methodCall(st ast.Stmt, names ...string) (string, bool) {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return "", false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return "", false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !slices.Contains(names, sel.Sel.Name) {
		return "", false
	}
	return types.ExprString(sel.X), true
}

// regionCall walks the statements after a Lock of mu up to its Unlock and
// returns the first call among them (nil if none), and whether the Unlock
// was reached. A branch that unlocks (and returns) ends the region in that
// branch; function literals are not entered, since they do not run there.
func regionCall(list []ast.Stmt, mu string) (*ast.CallExpr, bool) {
	for _, st := range list {
		if x, ok := methodCall(st, "Unlock", "RUnlock"); ok && x == mu {
			return nil, true
		}
		var call *ast.CallExpr
		var blocks [][]ast.Stmt
		var exprs []ast.Node
		switch s := st.(type) {
		case *ast.IfStmt:
			exprs = append(exprs, s.Init, s.Cond)
			blocks = append(blocks, s.Body.List)
			switch e := s.Else.(type) {
			case *ast.BlockStmt:
				blocks = append(blocks, e.List)
			case *ast.IfStmt:
				blocks = append(blocks, []ast.Stmt{e})
			}
		case *ast.BlockStmt:
			blocks = append(blocks, s.List)
		case *ast.ForStmt:
			exprs = append(exprs, s.Init, s.Cond, s.Post)
			blocks = append(blocks, s.Body.List)
		case *ast.RangeStmt:
			exprs = append(exprs, s.X)
			blocks = append(blocks, s.Body.List)
		case *ast.SwitchStmt:
			exprs = append(exprs, s.Init, s.Tag)
			for _, c := range s.Body.List {
				cc := c.(*ast.CaseClause)
				for _, e := range cc.List {
					exprs = append(exprs, e)
				}
				blocks = append(blocks, cc.Body)
			}
		default:
			exprs = append(exprs, st)
		}
		for _, e := range exprs {
			if call == nil && e != nil && !isNil(e) {
				call = firstCall(e)
			}
		}
		for _, b := range blocks {
			if call == nil {
				call, _ = regionCall(b, mu)
			}
		}
		if call != nil {
			return call, false
		}
	}
	return nil, false
}

func isNil(n ast.Node) bool {
	switch v := n.(type) {
	case ast.Stmt:
		return v == nil
	case ast.Expr:
		return v == nil
	}
	return false
}

// plainCalls may be made under a lock: builtins and conversions to basic
// types, which call no other code.
var plainCalls = []string{"append", "len", "cap", "delete", "copy", "min", "max", "clear", "make", "new",
	"string", "int", "int32", "int64", "uint32", "uint64", "float64", "byte", "rune"}

// firstCall returns the first call in n that is not a builtin, outside
// function literals.
func firstCall(n ast.Node) *ast.CallExpr {
	var found *ast.CallExpr
	ast.Inspect(n, func(n ast.Node) bool {
		switch c := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := c.Fun.(*ast.Ident); ok && slices.Contains(plainCalls, id.Name) {
				return true
			}
			if found == nil {
				found = c
			}
			return false
		}
		return found == nil
	})
	return found
}

func TestCallsUnderLockNoticeEachShape(t *testing.T) {
	src := `package p
func f() {
	mu.Lock()
	x = append(x, 1)
	mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	s.mu.Lock()
	if bad {
		s.mu.Unlock()
		return fail()
	}
	g()
	s.mu.Unlock()
	go func() {
		mu.Lock()
		f := func() { g() }
		mu.Unlock()
	}()
	switch {
	case true:
		mu.RLock()
	}
	mu.Lock()
	for _, v := range h() {
		_ = v
	}
	mu.Unlock()
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range callsUnderLock(fset, f) {
		got = append(got, b[:strings.Index(b, ": ")])
	}
	slices.Sort(got)
	if want := []string{"p.go:13:2", "p.go:22:3", "p.go:25:20"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("callsUnderLock = %v, want %v", got, want)
	}
}
