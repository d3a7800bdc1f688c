// Package chromium finds a headless Chromium for the tests that check
// arena's pages in a real browser (the HTML report, the dashboard), and
// says how to start it on machines like CI's: as root in a container, with
// no GPU and no network beyond loopback.
//
// Without a browser those tests skip, saying what went unchecked; with
// ARENA_REQUIRE_BROWSER=1 (CI sets it, after installing the distribution's
// chromium) they fail instead.
package chromium

import (
	"errors"
	"os"
	"os/exec"
)

// RequireEnv names the variable that turns a missing browser from a skip
// into a failure ("1").
const RequireEnv = "ARENA_REQUIRE_BROWSER"

// names are the executables looked for on PATH, in order.
var names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// ErrNotFound: no Chromium on PATH.
var ErrNotFound = errors.New("no Chromium found (apt-get install chromium)")

// Find returns the path of a Chromium on PATH.
func Find() (string, error) {
	for _, name := range names {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", ErrNotFound
}

// Flags are the command-line flags of a headless Chromium here, with a
// fresh profile in profileDir: no sandbox (root in a container), no GPU, no
// QUIC, and none of the browser's own traffic (updates, sync, first-run
// pages), so that what it fetches is what the page asks for.
func Flags(profileDir string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--no-default-browser-check",
		"--user-data-dir=" + profileDir,
	}
}

// TB is what Need uses of a *testing.T.
type TB interface {
	Helper()
	Fatal(args ...any)
	Skip(args ...any)
}

// Need returns the path of a Chromium. Without one it skips t, saying what
// went unchecked (unchecked: "the HTML report was not checked in a
// browser"), or fails t when ARENA_REQUIRE_BROWSER=1.
func Need(t TB, unchecked string) string {
	t.Helper()
	path, err := Find()
	if err == nil {
		return path
	}
	msg := err.Error() + "; " + unchecked
	if os.Getenv(RequireEnv) == "1" {
		t.Fatal(msg + ", and " + RequireEnv + "=1 requires it")
		return ""
	}
	t.Skip(msg)
	return ""
}
