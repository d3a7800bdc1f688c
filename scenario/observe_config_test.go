package scenario_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/scenario"
)

// TestScenarioObserveChangesTheRun: config.observe reaches the run. A 500ms
// probe interval takes a fifth of the samples; a settle time of 1s and one
// stable sample decide a leader kill's recovery sooner and shorter.
func TestScenarioObserveChangesTheRun(t *testing.T) {
	const base = `
name: observed
config:
  cooldown: 15s
  seed: 3
OBSERVE
actions:
  - delay: 5s
    action: {type: kill_leader}
`
	run := func(observe string) *engine.Report {
		t.Helper()
		sc, err := scenario.Load([]byte(strings.Replace(base, "OBSERVE", observe, 1)), "observed.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return runScenario(t, newRig(t, fakes.DefaultSeed).svc, sc).Report
	}
	def := run("")
	tuned := run("  observe: {probe_interval: 500ms, probe_timeout: 2s, settle_time: 1s, stable_samples: 1, recovery_deadline: 20s}")
	if def.Samples != 5*(tuned.Samples-1)+1 {
		t.Errorf("samples: default %d, with probe_interval 500ms %d; want 5:1", def.Samples, tuned.Samples)
	}
	if len(def.Faults) != 1 || len(tuned.Faults) != 1 {
		t.Fatalf("faults %d and %d, want 1 each", len(def.Faults), len(tuned.Faults))
	}
	// The recovery falls on the coarser probe grid.
	if d, tu := def.Faults[0].TTR, tuned.Faults[0].TTR; tu == d || tu.D()%(500*time.Millisecond) != 0 {
		t.Errorf("TTR default %s, tuned %s; want them to differ, the tuned one on the 500ms grid", d, tu)
	}
}

func TestScenarioObserveRejectsBadValues(t *testing.T) {
	for _, tc := range []struct{ observe, want string }{
		{"{settle_time: -1s}", "config.observe.settle_time"},
		{"{stable_samples: -2}", "config.observe.stable_samples"},
		{"{probe_interval: 1us}", "probe_interval: 1µs is out of range (want 1ms to 1h)"},
		{"{settle: 1s}", "settle"},
	} {
		src := "name: x\nconfig:\n  observe: " + tc.observe + "\nactions:\n  - action: {type: kill_leader}\n"
		_, err := scenario.Load([]byte(src), "x.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadScenario(observe: %s) = %v, want an error naming %q", tc.observe, err, tc.want)
		}
	}
	src := "name: x\nconfig:\n  probe_interval: 1s\n  observe: {probe_interval: 2s}\nactions:\n  - action: {type: kill_leader}\n"
	if _, err := scenario.Load([]byte(src), "x.yaml"); err == nil || !strings.Contains(err.Error(), "keep one") {
		t.Errorf("probe_interval in both places: %v, want an error", err)
	}
}
