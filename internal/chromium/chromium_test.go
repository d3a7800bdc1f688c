package chromium

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recordingT records what Need does to a test.
type recordingT struct{ fatal, skip string }

func (r *recordingT) Helper()           {}
func (r *recordingT) Fatal(args ...any) { r.fatal = fmt.Sprint(args...) }
func (r *recordingT) Skip(args ...any)  { r.skip = fmt.Sprint(args...) }

func TestNeedWithoutBrowser(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(RequireEnv, "")
	var r recordingT
	if got := Need(&r, "the page was not checked"); got != "" || r.fatal != "" ||
		r.skip != "no Chromium found (apt-get install chromium); the page was not checked" {
		t.Errorf("Need = %q, skip %q, fatal %q; want a skip saying what went unchecked", got, r.skip, r.fatal)
	}
	t.Setenv(RequireEnv, "1")
	r = recordingT{}
	if Need(&r, "the page was not checked"); r.skip != "" || !strings.HasSuffix(r.fatal, "and ARENA_REQUIRE_BROWSER=1 requires it") {
		t.Errorf("under %s=1: skip %q, fatal %q; want a failure", RequireEnv, r.skip, r.fatal)
	}
}

func TestNeedFindsTheFirstName(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"google-chrome", "chromium-browser"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	var r recordingT
	if got := Need(&r, "x"); got != filepath.Join(dir, "chromium-browser") || r.skip != "" || r.fatal != "" {
		t.Errorf("Need = %q (skip %q, fatal %q), want chromium-browser, the first name found", got, r.skip, r.fatal)
	}
}

func TestFlags(t *testing.T) {
	f := Flags("/tmp/p")
	for _, want := range []string{"--headless", "--no-sandbox", "--disable-background-networking", "--user-data-dir=/tmp/p"} {
		if !slices.Contains(f, want) {
			t.Errorf("Flags lack %s: %q", want, f)
		}
	}
}
