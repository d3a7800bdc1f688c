package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// writeModule writes a module of files (path → content) into a temporary
// directory and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestUnbuildableNamesTheImportAndTheFix: arena-wasm test on packages
// that go test cannot build for wasip1 says which import or call stops
// them, and what to do.
func TestUnbuildableNamesTheImportAndTheFix(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		want  string
	}{
		"an import with no wasip1 code": {
			files: map[string]string{
				"go.mod":             "module example.com/m\n\ngo 1.26\n",
				"m_test.go":          "package m\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/native\"\n)\n\nfunc TestX(t *testing.T) { native.F() }\n",
				"native/native.go":   "//go:build !wasip1\n\npackage native\n\nfunc F() {}\n",
				"native/native_x.go": "//go:build !wasip1\n\npackage native\n",
			},
			want: "it imports example.com/m/native, which has no code for wasip1",
		},
		"a system call wasip1 lacks": {
			files: map[string]string{
				"go.mod":    "module example.com/m\n\ngo 1.26\n",
				"m_test.go": "package m\n\nimport (\n\t\"syscall\"\n\t\"testing\"\n)\n\nfunc TestX(t *testing.T) { syscall.Mmap(0, 0, 0, 0, 0) }\n",
			},
			want: "m_test.go uses syscall.Mmap, which wasip1 does not have",
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeModule(t, tc.files)
			var out, errOut bytes.Buffer
			code := goTest(context.Background(), []string{"."}, dir, &out, &errOut)
			if code == 0 {
				t.Fatalf("exit 0 for a package that does not build:\n%s%s", out.String(), errOut.String())
			}
			for _, want := range []string{tc.want, "fix: run it in the native simulated mode", "behind an interface"} {
				if !strings.Contains(errOut.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
				}
			}
		})
	}
}

func TestUnbuildableSaysNothingOfOtherFailures(t *testing.T) {
	if why := unbuildable("--- FAIL: TestX (0.00s)\nFAIL\nFAIL\texample.com/m\t0.01s\n"); why != "" {
		t.Errorf("a failing test explained as a build problem: %q", why)
	}
}

func TestRunRefusesWhatIsNoTestBinary(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.test")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code := execBinary(context.Background(), p, nil); code != 2 {
		t.Errorf("execBinary on a shell script = %d, want 2", code)
	}
	if code := run(context.Background(), []string{"-test.v"}); code != 2 {
		t.Errorf("run with a flag first = %d, want 2", code)
	}
}
