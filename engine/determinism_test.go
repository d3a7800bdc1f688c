package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// chaos is a schedule with selectors, so target choice depends on the seed.
var chaos = []engine.Step{
	at(5*time.Second, fault.KillLeader, "", nil),
	at(20*time.Second, fault.KillAgent, "random", nil),
	at(35*time.Second, fault.LLMFailure, "type:worker", map[string]any{"duration": "8s"}),
	at(50*time.Second, fault.NetworkPartition, "type:worker", nil),
	at(65*time.Second, fault.MemoryCorrupt, "random", nil),
	at(80*time.Second, fault.RemoveNode, "random", nil),
}

func reportJSON(t *testing.T, seed uint64) ([]byte, *rig) {
	t.Helper()
	e := newRig(fakes.WithSeed(seed))
	rep, err := engine.RunSchedule(context.Background(), e.svc, engine.RunOptions{Seed: seed, Duration: 2 * time.Minute}, chaos...)
	if err != nil {
		t.Fatal(err)
	}
	rep.WallTime = 0 // the one wall-clock field
	b, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b, e
}

func TestVirtualRunIsReproducible(t *testing.T) {
	a, ea := reportJSON(t, 42)
	b, eb := reportJSON(t, 42)
	if !bytes.Equal(a, b) {
		t.Fatalf("same seed, different reports:\n%s\n---\n%s", a, b)
	}
	if ea.cluster.Tasks() != eb.cluster.Tasks() {
		t.Errorf("same seed, different workloads: %+v vs %+v", ea.cluster.Tasks(), eb.cluster.Tasks())
	}
	c, ec := reportJSON(t, 43)
	if bytes.Equal(a, c) {
		t.Error("seeds 42 and 43 gave identical reports")
	}
	if ea.cluster.Tasks() == ec.cluster.Tasks() {
		t.Errorf("seeds 42 and 43 gave the same workload: %+v", ea.cluster.Tasks())
	}
}
