package scenario_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/scenarios"
)

// TestWriteYAMLRoundTrip: every built-in scenario, written and read back,
// is the scenario it was.
func TestWriteYAMLRoundTrip(t *testing.T) {
	for _, name := range scenarios.Names() {
		sc, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := sc.WriteYAML(&out); err != nil {
			t.Fatal(err)
		}
		again, err := scenario.Load(out.Bytes(), name+".yaml")
		if err != nil {
			t.Fatalf("%s: written scenario does not load: %v\n%s", name, err, out.String())
		}
		a, _ := json.Marshal(sc)
		b, _ := json.Marshal(again)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the round trip changed it:\n%s\n%s", name, a, b)
		}
	}
}

func TestWriteYAML(t *testing.T) {
	mttr := clock.Duration(2 * time.Second)
	sc := &scenario.Scenario{
		Name:   "small",
		Config: scenario.Config{Seed: 7, Warmup: clock.Duration(10 * time.Second), Cooldown: clock.Duration(30 * time.Second)},
		Actions: []scenario.Step{
			{Action: fault.Action{ID: "act-000001", Type: fault.NetworkPartition, TargetID: "worker-2", Metadata: map[string]any{"duration": "1ms"}, CreatedAt: time.Now()}},
			{Delay: clock.Duration(1500 * time.Millisecond), Action: fault.Action{Type: fault.KillLeader}},
		},
		Expect: scenario.Gate{Consistent: true, MaxMTTR: &mttr, MinGrade: engine.GradeB},
	}
	var out strings.Builder
	if err := sc.WriteYAML(&out); err != nil {
		t.Fatal(err)
	}
	want := `name: small
config:
  warmup: 10s
  cooldown: 30s
  seed: 7
actions:
  - action:
      type: network_partition
      target_id: worker-2
      metadata:
        duration: 1ms
  - delay: 1.5s
    action:
      type: kill_leader
expect:
  min_grade: B
  max_mttr: 2s
  consistent: true
`
	if out.String() != want {
		t.Errorf("WriteYAML =\n%s\nwant\n%s", out.String(), want)
	}
	if sc.Actions[0].Action.ID != "act-000001" {
		t.Error("WriteYAML changed the scenario's action ID")
	}
}
