package cigate

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/ares-arena/arena/engine"
)

// TestWorkflow: the workflow runs this package with a gate and a report
// directory, and uploads and publishes that directory even when the gate
// fails.
func TestWorkflow(t *testing.T) {
	data, err := os.ReadFile("github-workflow.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string            `yaml:"name"`
				Uses string            `yaml:"uses"`
				If   string            `yaml:"if"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	job, ok := wf.Jobs["arena-gate"]
	if !ok {
		t.Fatalf("no arena-gate job in %v", wf.Jobs)
	}
	var reportDir string
	var uploaded, published bool
	for _, s := range job.Steps {
		switch {
		case strings.Contains(s.Run, "go test ./examples/ci-gate"):
			if _, err := engine.ParseGrade(s.Env["ARENA_MIN_GRADE"]); err != nil {
				t.Errorf("gate step: ARENA_MIN_GRADE: %v", err)
			}
			reportDir = strings.TrimPrefix(s.Env["ARENA_REPORT_DIR"], "${{ github.workspace }}/")
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			uploaded = s.If == "always()" && reportDir != "" && strings.TrimSuffix(s.With["path"], "/") == reportDir
		case strings.HasPrefix(s.Uses, "mikepenz/action-junit-report@"):
			published = s.If == "always()" && reportDir != "" && s.With["report_paths"] == reportDir+"/*.xml"
		}
	}
	if reportDir == "" || !uploaded || !published {
		t.Errorf("report dir %q, uploaded %v, published %v: want the gate step's ARENA_REPORT_DIR uploaded and published always", reportDir, uploaded, published)
	}
}

// TestGateFailsTheBuild runs the gate against a cluster that no longer
// heals: go test fails, prints how to replay each failure, and leaves JUnit
// reports with the failures for CI to show.
func TestGateFailsTheBuild(t *testing.T) {
	if os.Getenv("ARENA_CI_GATE_REGRESSION") != "" {
		t.Skip("already the child")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestResilienceGate$")
	cmd.Env = append(os.Environ(), "ARENA_CI_GATE_REGRESSION=1", "ARENA_MIN_GRADE=B", "ARENA_REPORT_DIR="+dir, "ARENA_SEED=5")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the gate passed a cluster without self-healing:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestResilienceGate/leader-failover",
		"arena: scenario leader-failover failed its gate: score ",
		"is below the minimum B",
		"rerun: go test -run '^TestResilienceGate$/^leader-failover$' -arena.seed=5",
		"arena: survival run failed its gate: score ",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.xml"))
	failures := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Failures int `xml:"failures,attr"`
		}
		if err := xml.Unmarshal(data, &doc); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		failures += doc.Failures
	}
	if len(files) != 6 || failures == 0 {
		t.Errorf("%d JUnit files with %d failures, want 6 files with failures", len(files), failures)
	}
	if t.Failed() {
		t.Logf("gate output:\n%s", out)
	}
}
