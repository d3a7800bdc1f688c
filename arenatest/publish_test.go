package arenatest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
)

// TestGinkgoEntries: under GinkgoT() the figures are report entries, with
// their types kept, and the rerun command focuses the spec.
func TestGinkgoEntries(t *testing.T) {
	g := &ginkgoRecorder{recorder: &recorder{name: "Arena survives a day's chaos [survival]"}}
	runRecorded(g.recorder, func() {
		arenatest.Run(g, "leader-failover", arenatest.WithSeed(7), arenatest.WithCluster(fakes.WithoutHealing()))
	})
	want := []string{"arena.scenario=leader-failover (string)", "arena.gate=failed (string)", "arena.score=42 (float64)",
		"arena.grade=F (string)", "arena.mttr=0s (string)", "arena.unrecovered=1 (int)", "arena.seed=7 (uint64)"}
	if diff := cmp.Diff(want, g.entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if len(g.attrs) != 0 {
		t.Errorf("attrs %q as well as report entries", g.attrs)
	}
	wantTail := `seed: 7
rerun: go test -ginkgo.focus='^Arena survives a day'\''s chaos \[survival\]$' -arena.seed=7
   or: ARENA_SEED=7 ginkgo --focus='^Arena survives a day'\''s chaos \[survival\]$'`
	if !strings.HasSuffix(g.errorText(), "\n"+wantTail) {
		t.Errorf("failure under Ginkgo does not end with\n%s\ngot\n%s", wantTail, g.errorText())
	}
}

// TestBenchmarkMetric: a benchmark gets the score as a custom metric, and
// a rerun command that runs the benchmark.
func TestBenchmarkMetric(t *testing.T) {
	b := &benchRecorder{recorder: &recorder{name: "BenchmarkLeaderFailover"}}
	dir := t.TempDir()
	runRecorded(b.recorder, func() {
		for range 3 {
			arenatest.Run(b, "leader-failover", arenatest.WithSeed(7), arenatest.WithCluster(fakes.WithoutHealing()), arenatest.WithReportDir(dir))
		}
	})
	if files, _ := os.ReadDir(dir); len(files) != 3 {
		t.Errorf("a benchmark's runs wrote %d files, want one JSON, JUnit and text report", len(files))
	}
	if len(b.attrs) != 0 || len(b.logs) != 0 {
		t.Errorf("a benchmark got attrs %q and logs %q; its score is a metric", b.attrs, b.logs)
	}
	if want := []string{"41.97604790419162 score", "41.97604790419162 score", "41.97604790419162 score"}; !cmp.Equal(b.metrics, want) {
		t.Errorf("metrics %q, want %q", b.metrics, want)
	}
	if want := "rerun: go test -run '^$' -bench '^BenchmarkLeaderFailover$' -arena.seed=7\n"; !strings.Contains(b.errorText(), want) {
		t.Errorf("failure does not contain %q:\n%s", want, b.errorText())
	}
}

func BenchmarkRun(b *testing.B) {
	for b.Loop() {
		arenatest.Run(b, "leader-failover", arenatest.WithSeed(7))
	}
}

func TestEntries(t *testing.T) {
	if got := arenatest.Entries(42); got != nil {
		t.Errorf("Entries(42) = %v, want nil", got)
	}
	got := arenatest.Entries(&engine.Report{Seed: 3})
	want := []arenatest.Entry{{Key: "arena.grade", Value: "none"}, {Key: "arena.mttr", Value: "0s"}, {Key: "arena.unrecovered", Value: 0}, {Key: "arena.seed", Value: uint64(3)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Entries(unmeasured report) (-want +got):\n%s", diff)
	}
}

// TestAttrDemo is run by TestGoTestJSON through go test -json.
func TestAttrDemo(t *testing.T) {
	if os.Getenv("ARENATEST_ATTR_DEMO") == "" {
		t.Skip("run by TestGoTestJSON")
	}
	arenatest.Run(t, "leader-failover", arenatest.WithSeed(7))
}

// TestGoTestJSON: go test -json shows the figures as "attr" events.
func TestGoTestJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package's test binary again")
	}
	cmd := exec.Command("go", "test", "-json", "-count=1", "-run", "^TestAttrDemo$", ".")
	cmd.Env = append(os.Environ(), "ARENATEST_ATTR_DEMO=1", "ARENA_SEED=", "ARENA_REPORT_DIR=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test -json: %v\n%s", err, out)
	}
	var attrs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var ev struct{ Action, Test, Key, Value string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			continue // go's own build output
		}
		if ev.Action == "attr" && ev.Test == "TestAttrDemo" {
			attrs = append(attrs, ev.Key+"="+ev.Value)
		}
	}
	want := []string{"arena.scenario=leader-failover", "arena.gate=passed", "arena.score=97.6", "arena.grade=A+",
		"arena.mttr=1.3s", "arena.unrecovered=0", "arena.seed=7"}
	if !slices.Equal(attrs, want) {
		t.Errorf("attr events %q, want %q\n%s", attrs, want, out)
	}
}
