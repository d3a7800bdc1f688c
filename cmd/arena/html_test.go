package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHTMLReports: --html writes the self-contained page for run and
// survive; a path that cannot be written is an infrastructure error.
func TestHTMLReports(t *testing.T) {
	dir := t.TempDir()
	runPage := filepath.Join(dir, "run.html")
	if code, _, errOut := cli(t, "run", "leader-failover", "--seed", "7", "--html", runPage); code != exitPass {
		t.Fatalf("run --html = %d: %s", code, errOut)
	}
	survivePage := filepath.Join(dir, "survive.html")
	if code, _, errOut := cli(t, "survive", "--duration", "5m", "--interval", "10s", "--seed", "3", "--html", survivePage); code != exitPass {
		t.Fatalf("survive --html = %d: %s", code, errOut)
	}
	for path, wants := range map[string][]string{
		runPage:     {"<h1>leader-failover</h1>", "seed <b>7</b>", `<svg class="chart"`, `id="faults"`, `id="gate"`},
		survivePage: {"<h1>survival run</h1>", "seed <b>3</b>", `<svg class="chart"`, `id="by-type"`},
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range wants {
			if !bytes.Contains(b, []byte(want)) {
				t.Errorf("%s lacks %q", filepath.Base(path), want)
			}
		}
		if bytes.Contains(b, []byte("http")) {
			t.Errorf("%s names a URL", filepath.Base(path))
		}
	}
	bad := filepath.Join(dir, "no-such-dir", "x.html")
	if code, _, errOut := cli(t, "run", "leader-failover", "--seed", "7", "--html", bad); code != exitInfra || !strings.Contains(errOut, "--html") {
		t.Errorf("run --html into a missing directory = %d, %q; want 3", code, errOut)
	}
	if code, _, errOut := cli(t, "survive", "--duration", "1m", "--seed", "3", "--html", bad); code != exitInfra || !strings.Contains(errOut, "--html") {
		t.Errorf("survive --html into a missing directory = %d, %q; want 3", code, errOut)
	}
}
