package arenaginkgo_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/ares-arena/arena/arenaginkgo"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/scenarios"
)

// TestReportFiles runs this package's suite in a child process with
// -ginkgo.json-report and -ginkgo.junit-report, and finds each spec's arena
// figures in both files.
func TestReportFiles(t *testing.T) {
	if os.Getenv("ARENAGINKGO_FAILING_SPEC") != "" {
		t.Skip("in the suite that a report test runs")
	}
	dir := t.TempDir()
	jsonReport, junitReport := filepath.Join(dir, "report.json"), filepath.Join(dir, "junit.xml")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSuite$", "-ginkgo.no-color",
		"-ginkgo.json-report="+jsonReport, "-ginkgo.junit-report="+junitReport)
	cmd.Env = append(os.Environ(), "ARENAGINKGO_FAILING_SPEC=1", "ARENA_SEED=", "ARENA_REPORT_DIR=",
		"ARENAGINKGO_PLAIN_JUNIT="+filepath.Join(dir, "plain.xml"))
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the suite passed with its failing spec:\n%s", out)
	}
	checkReports(t, jsonReport, junitReport, filepath.Join(dir, "plain.xml"))
	if t.Failed() {
		t.Logf("suite output:\n%s", out)
	}
}

// TestGinkgoCLIReports runs this package's suite with the ginkgo command
// itself (built from the module), as a CI job would: ginkgo
// --json-report --junit-report.
func TestGinkgoCLIReports(t *testing.T) {
	switch {
	case testing.Short():
		t.Skip("builds the ginkgo command")
	case os.Getenv("ARENAGINKGO_FAILING_SPEC") != "":
		t.Skip("in the suite that a report test runs")
	}
	dir := t.TempDir()
	ginkgo := filepath.Join(dir, "ginkgo")
	if out, err := exec.Command("go", "build", "-o", ginkgo, "github.com/onsi/ginkgo/v2/ginkgo").CombinedOutput(); err != nil {
		t.Fatalf("go build ginkgo: %v\n%s", err, out)
	}
	cmd := exec.Command(ginkgo, "--no-color", "--json-report=report.json",
		"--junit-report=junit.xml", "--output-dir="+dir, ".")
	cmd.Env = append(os.Environ(), "ARENAGINKGO_FAILING_SPEC=1", "ARENA_SEED=", "ARENA_REPORT_DIR=",
		"ARENAGINKGO_PLAIN_JUNIT="+filepath.Join(dir, "plain.xml"))
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the suite passed with its failing spec:\n%s", out)
	}
	checkReports(t, filepath.Join(dir, "report.json"), filepath.Join(dir, "junit.xml"), filepath.Join(dir, "plain.xml"))
	if t.Failed() {
		t.Logf("ginkgo output:\n%s", out)
	}
}

// checkReports finds each spec's arena figures in a suite's JSON and JUnit
// reports, at the line of the spec that made them, and in the plain JUnit
// file of GenerateJUnitReport as text.
func checkReports(t *testing.T, jsonReport, junitReport, plainReport string) {
	t.Helper()

	// What the specs should have reported: the same runs, made here.
	scenarioEntries := entries(arenatest.Entries(leaderFailover(t)))
	failingEntries := entries(arenatest.Entries(leaderFailover(t, fakes.WithoutHealing())))
	want := map[string]struct {
		state   types.SpecState
		entries map[string]string
	}{
		"arena under Ginkgo runs a scenario":       {types.SpecStatePassed, scenarioEntries},
		"arena under Ginkgo fails without healing": {types.SpecStateFailed, failingEntries},
	}

	results, err := arenaginkgo.ReadResults(jsonReport)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]arenaginkgo.SpecResult{}
	for _, r := range results {
		got[r.Spec] = r
	}
	for spec, w := range want {
		r, ok := got[spec]
		if !ok {
			t.Errorf("JSON report: no arena entries for %q (got %v)", spec, results)
			continue
		}
		if r.State != w.state || fmt.Sprint(r.Entries) != fmt.Sprint(w.entries) {
			t.Errorf("JSON report, %q: %s %v, want %s %v", spec, r.State, r.Entries, w.state, w.entries)
		}
	}
	if r := got["arena under Ginkgo survives an hour"]; r.Entries["arena.seed"] != "7" || r.Entries["arena.grade"] == "" ||
		strings.Join(r.Labels, ",") != "chaos,survival" {
		t.Errorf("JSON report, survival spec: %+v", r)
	}
	if r := got["arena under Ginkgo compares strategies"]; r.Entries["arena.verdict"] != "better" || r.Entries["arena.seed"] != "1" {
		t.Errorf("JSON report, A/B spec: %+v", r)
	}

	// The failing spec's message is arenatest's, with Ginkgo's rerun commands.
	var reports []types.Report
	data, _ := os.ReadFile(jsonReport)
	if err := json.Unmarshal(data, &reports); err != nil {
		t.Fatal(err)
	}
	// Each entry is at the spec's own line, not inside arenatest.
	wantLine := lineOf(t, "suite_test.go", "the line TestReportFiles expects its entries at")
	for _, spec := range reports[0].SpecReports {
		if spec.FullText() != "arena under Ginkgo runs a scenario" {
			continue
		}
		for _, e := range spec.ReportEntries {
			if loc := e.Location; filepath.Base(loc.FileName) != "suite_test.go" || loc.LineNumber != wantLine {
				t.Errorf("entry %s at %s:%d, want suite_test.go:%d (the user's line)", e.Name, loc.FileName, loc.LineNumber, wantLine)
			}
		}
	}
	for _, spec := range reports[0].SpecReports {
		if spec.FullText() == "arena under Ginkgo fails without healing" {
			wantRerun := "rerun: go test -ginkgo.focus='^arena under Ginkgo fails without healing$' -arena.seed=7\n" +
				"   or: ARENA_SEED=7 ginkgo --focus='^arena under Ginkgo fails without healing$'"
			if msg := spec.FailureMessage(); !strings.HasPrefix(msg, "arena: scenario leader-failover failed its gate: ") || !strings.Contains(msg, wantRerun) {
				t.Errorf("failure message:\n%s", msg)
			}
		}
	}

	// JUnit: the entries are properties of the spec's testcase, as JSON.
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name       string `xml:"name,attr"`
				Properties []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if data, err = os.ReadFile(junitReport); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	props := map[string]string{}
	for _, c := range doc.Suites[0].Cases {
		if strings.Contains(c.Name, "arena under Ginkgo runs a scenario ") {
			for _, p := range c.Properties {
				props[p.Name] = p.Value
			}
		}
	}
	for _, key := range []string{"arena.score", "arena.grade", "arena.seed", "arena.gate"} {
		v, _ := json.Marshal(jsonValue(arenatest.Entries(leaderFailover(t)), key))
		if props[key] != string(v) {
			t.Errorf("JUnit property %s = %q, want %q (all: %v)", key, props[key], v, props)
		}
	}

	// GenerateJUnitReport: the same file with arena's values as text.
	if data, err = os.ReadFile(plainReport); err != nil {
		t.Fatal(err)
	}
	doc.Suites = nil
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	plain := map[string]string{}
	for _, c := range doc.Suites[0].Cases {
		if strings.Contains(c.Name, "arena under Ginkgo runs a scenario ") {
			for _, p := range c.Properties {
				plain[p.Name] = p.Value
			}
		}
	}
	for key, want := range scenarioEntries {
		if plain[key] != want {
			t.Errorf("plain JUnit property %s = %q, want %q (all: %v)", key, plain[key], want, plain)
		}
	}
}

// lineOf returns the line of file (in this directory) that contains marker.
func lineOf(t *testing.T, file, marker string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, marker) && !strings.Contains(line, "lineOf(") {
			return i + 1
		}
	}
	t.Fatalf("%s has no line with %q", file, marker)
	return 0
}

// leaderFailover runs the built-in scenario as the suite's specs do.
func leaderFailover(t *testing.T, opts ...fakes.Option) *scenario.Report {
	t.Helper()
	sc, err := scenarios.Load("leader-failover")
	if err != nil {
		t.Fatal(err)
	}
	sc.Config.Seed = 7
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(append([]fakes.Option{fakes.WithClock(clk), fakes.WithSeed(7)}, opts...)...)
	svc := engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(), nil,
		engine.WithClock(clk), engine.WithSeed(7), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...))
	rep, err := scenario.Run(context.Background(), svc, sc)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// entries is arenatest.Entries as Ginkgo shows them.
func entries(es []arenatest.Entry) map[string]string {
	m := map[string]string{}
	for _, e := range es {
		m[e.Key] = fmt.Sprint(e.Value)
	}
	return m
}

func jsonValue(es []arenatest.Entry, key string) any {
	for _, e := range es {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}
