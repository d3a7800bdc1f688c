package etcdcluster

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/history"
)

// TestChaosAgainstEtcd runs a three-member etcd cluster (the Kubernetes
// plane's etcd, in a FROM scratch image) under arena on the real clock: the
// Raft leader killed twice (found live), a member cut off for 8s, another
// paused for 5s, while four clients read, write and compare-and-set five
// keys through the v3 gateway. arena checks the recorded history for
// linearizability (package history, porcupine) after each recovery and at
// the end: every fault must recover and every check pass, decided.
func TestChaosAgainstEtcd(t *testing.T) {
	containers.RequireDocker(t)
	bin, err := FindBinary()
	if err != nil {
		if os.Getenv("ARENA_REQUIRE_DOCKER") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx := context.Background()
	image, err := BuildImage(ctx, bin)
	if err != nil {
		t.Fatalf("etcd image: %v", err)
	}
	var (
		rtMu sync.Mutex
		rt   *containers.Runtime
	)
	endpoint := func(id string) string {
		rtMu.Lock()
		defer rtMu.Unlock()
		a, _ := rt.Agent(id)
		return a.Endpoint()
	}
	r := containers.ForTest(t, append(Options(image, endpoint), containers.WithProject("arena-etcd-example"),
		containers.WithPartitionHealing(0), containers.WithProbeTimeout(500*time.Millisecond))...)
	rtMu.Lock()
	rt = r
	rtMu.Unlock()
	var endpoints []string
	for _, m := range Members {
		endpoints = append(endpoints, endpoint(m))
	}

	w := NewWorkload(clock.Real{}, endpoints, time.Second)
	workCtx, stopWork := context.WithCancel(ctx)
	var bg sync.WaitGroup
	bg.Go(func() { w.Run(workCtx, 4, 23) })
	defer func() { stopWork(); bg.Wait() }()

	svc := engine.NewService(fault.NewInjector(rt, nil), events.NewMemoryStore(), nil,
		engine.WithProbe(rt.Probe),
		engine.WithChecks(history.Linearizable("etcd linearizable", w.Recorder(), history.KVModel(), history.WithBudget(30*time.Second))),
		engine.WithObserveOptions(engine.ObserveOptions{ProbeInterval: 100 * time.Millisecond, SettleTime: 3 * time.Second}))
	step := func(at time.Duration, typ fault.Type, target string, meta map[string]any) engine.Step {
		return engine.Step{At: at, Action: fault.Action{Type: typ, TargetID: target, Metadata: meta}}
	}
	rep, err := engine.RunSchedule(ctx, svc, engine.RunOptions{Seed: 23, Duration: 75 * time.Second},
		step(3*time.Second, fault.KillLeader, "", nil),
		step(20*time.Second, fault.NetworkPartition, "random", map[string]any{"duration": "8s"}),
		step(38*time.Second, fault.PauseAgent, "random", map[string]any{"duration": "5s"}),
		step(55*time.Second, fault.KillLeader, "", nil),
	)
	if err != nil {
		t.Fatal(err)
	}
	stopWork()
	bg.Wait()
	t.Logf("workload: %s (real clock)\n%s", w, rep)
	if len(rep.Faults) != 4 || rep.Unrecovered != 0 {
		t.Errorf("%d faults landed, %d unrecovered; want 4, all recovered; injection errors: %+v", len(rep.Faults), rep.Unrecovered, rep.InjectionErrors)
	}
	if rep.ChecksRun != len(rep.Faults)+1 || rep.ChecksPassed != rep.ChecksRun || rep.ChecksUndecided != 0 {
		t.Errorf("linearizability: %d of %d checks passed, %d undecided; want one after each fault and one at the end, all passed", rep.ChecksPassed, rep.ChecksRun, rep.ChecksUndecided)
	}
	if c := w.Counts(); c[history.OK] < 500 || c[history.Unknown]+c[history.Failed] == 0 {
		t.Errorf("workload %s: want at least 500 acknowledged operations and some the faults cut off", w)
	}
}
