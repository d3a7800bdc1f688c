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

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/arenaginkgo"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/scenarios"
)

// TestReportFiles runs this package's suite in a child process with
// -ginkgo.json-report and -ginkgo.junit-report, and finds each spec's arena
// figures in both files.
func TestReportFiles(t *testing.T) {
	dir := t.TempDir()
	jsonReport, junitReport := filepath.Join(dir, "report.json"), filepath.Join(dir, "junit.xml")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSuite$", "-ginkgo.no-color",
		"-ginkgo.json-report="+jsonReport, "-ginkgo.junit-report="+junitReport)
	cmd.Env = append(os.Environ(), "ARENAGINKGO_FAILING_SPEC=1", "ARENA_SEED=", "ARENA_REPORT_DIR=")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the suite passed with its failing spec:\n%s", out)
	}

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
	if t.Failed() {
		t.Logf("suite output:\n%s", out)
	}
}

// leaderFailover runs the built-in scenario as the suite's specs do.
func leaderFailover(t *testing.T, opts ...fakes.Option) *arena.ScenarioReport {
	t.Helper()
	sc, err := scenarios.Load("leader-failover")
	if err != nil {
		t.Fatal(err)
	}
	sc.Config.Seed = 7
	clock := arena.NewVirtualClock(time.Time{})
	c := fakes.NewCluster(append([]fakes.Option{fakes.WithClock(clock), fakes.WithSeed(7)}, opts...)...)
	svc := arena.NewService(arena.NewInjector(c, c), events.NewMemoryStore(), nil,
		arena.WithClock(clock), arena.WithSeed(7), arena.WithProbe(c.Probe), arena.WithChecks(c.Checks()...))
	rep, err := arena.RunScenarioReport(context.Background(), svc, sc)
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
