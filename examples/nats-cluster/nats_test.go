package natscluster

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fault"
)

// probeInterval is arena's probe interval in this test. The tolerance of a
// TTR against the workload's own outage is two intervals plus 100ms: the
// probe fails a sample when any publish failed since the previous one (so a
// brief failure between samples is not missed), so the recovery is seen at
// the second sample after the last failure at the latest.
const probeInterval = 100 * time.Millisecond

// probeTimeout bounds each of the workload's publishes (and so arena's
// probe, which reads the latest).
const probeTimeout = 250 * time.Millisecond

// leaderView is what the servers said about the meta leader at one time.
type leaderView struct {
	at    time.Time
	views map[string]string // server → the meta leader it follows
}

// TestChaosAgainstNATS runs a JetStream cluster under arena: two kills of
// the current meta leader (it moves after the first), a random kill, a
// pause, a partition and a slowdown, while the workload publishes to an R3
// stream. arena's probe is the workload's latest publish (Workload.Probe);
// the runtime's quorum probe on /healthz answers for the meta layer, which a
// client does not see (a meta leader that leads no stream can die unnoticed).
// Per fault it prints arena's TTR beside the outage the workload measured
// itself, and asserts that they agree within two probe intervals
// plus 100ms, that every leader kill hit the node the servers themselves
// named meta leader just before, and that arena's checks of the recorded
// publishes pass after every recovery and at the end (package history: no
// acknowledged message lost, no sequence gap, no duplicate). The run is on
// the real clock.
func TestChaosAgainstNATS(t *testing.T) {
	containers.RequireDocker(t)
	ctx := context.Background()
	image, err := BuildImage(ctx)
	if err != nil {
		t.Fatalf("nats image: %v", err)
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
	opts := append(Options(image, MetaLeaderRoles(endpoint)),
		containers.WithProject("arena-nats-example"), containers.WithPartitionHealing(0),
		containers.WithProbeTimeout(250*time.Millisecond))
	r := containers.ForTest(t, opts...)
	rtMu.Lock()
	rt = r
	rtMu.Unlock()

	var urls []string
	for _, n := range Nodes {
		a, _ := rt.Agent(n)
		p, err := a.Container.MappedPort(ctx, ClientPort)
		if err != nil {
			t.Fatal(err)
		}
		host, err := a.Container.Host(ctx)
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, fmt.Sprintf("nats://%s:%s", host, p.Port()))
	}
	w, err := NewWorkload(ctx, clock.Real{}, urls, probeTimeout, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	// The servers' own view of the meta leader, polled independently of
	// arena's role resolver.
	pollCtx, stopPoll := context.WithCancel(ctx)
	var (
		viewsMu sync.Mutex
		views   []leaderView
		bg      sync.WaitGroup
	)
	bg.Go(func() {
		for pollCtx.Err() == nil {
			at := time.Now()
			v := MetaLeaderViews(pollCtx, endpoint)
			viewsMu.Lock()
			views = append(views, leaderView{at, v})
			viewsMu.Unlock()
			time.Sleep(50 * time.Millisecond)
		}
	})
	workCtx, stopWork := context.WithCancel(ctx)
	bg.Go(func() { w.Run(workCtx, 20*time.Millisecond) })
	defer func() { stopWork(); stopPoll(); bg.Wait() }()

	svc := engine.NewService(fault.NewInjector(rt, nil), events.NewMemoryStore(), nil,
		engine.WithProbe(w.Probe),
		engine.WithChecks(w.Checks()...),
		engine.WithObserveOptions(engine.ObserveOptions{ProbeInterval: probeInterval, ProbeTimeout: probeTimeout, SettleTime: 5 * time.Second}))
	step := func(at time.Duration, typ fault.Type, target string, meta map[string]any) engine.Step {
		return engine.Step{At: at, Action: fault.Action{Type: typ, TargetID: target, Metadata: meta}}
	}
	time.Sleep(2 * time.Second) // the workload's first acks
	rep, err := engine.RunSchedule(ctx, svc, engine.RunOptions{Seed: 12, Duration: 140 * time.Second},
		step(3*time.Second, fault.KillLeader, "", nil),
		step(25*time.Second, fault.KillLeader, "", nil),
		step(47*time.Second, fault.KillAgent, "random", nil),
		step(69*time.Second, fault.PauseAgent, "random", map[string]any{"duration": "5s"}),
		step(91*time.Second, fault.NetworkPartition, "random", map[string]any{"duration": "8s"}),
		step(113*time.Second, fault.SlowAgent, "random", map[string]any{"duration": "5s", "delay": "200ms"}),
	)
	if err != nil {
		t.Fatal(err)
	}
	stopWork()
	stopPoll()
	bg.Wait()

	var tb strings.Builder
	tw := tabwriter.NewWriter(&tb, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "at\tfault\ttarget\tinject call\tarena TTR\tworkload outage\tdiff\tmeta leader before (servers' /jsz)")
	tolerance := 2*probeInterval + 100*time.Millisecond
	var failures []string
	for i, f := range rep.Faults {
		start := rep.Start.Add(f.At.D())
		end := rep.End
		if i+1 < len(rep.Faults) {
			end = rep.Start.Add(rep.Faults[i+1].At.D())
		}
		outage := w.Outage(start, end)
		ttr := time.Duration(0)
		if f.Recovered {
			ttr = f.TTR.D()
		}
		diff := ttr - outage
		leader := "-"
		if f.Action.Type == fault.KillLeader {
			leader = leaderBefore(views, &viewsMu, start)
			if leader != f.Action.TargetID {
				t.Errorf("fault %d: kill_leader hit %s, but the servers named %q meta leader just before", i, f.Action.TargetID, leader)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.At, f.Action.Type, f.Action.TargetID, f.InjectDuration,
			ttrText(f), outage.Round(time.Millisecond), diff.Round(time.Millisecond), leader)
		if fails := w.Failures(start, end); len(fails) > 0 {
			failures = append(failures, fmt.Sprintf("fault %d (%s %s): %s", i, f.Action.Type, f.Action.TargetID, strings.Join(fails, "; ")))
		}
		if !f.Recovered {
			t.Errorf("fault %d (%s %s) did not recover", i, f.Action.Type, f.Action.TargetID)
		} else if diff > tolerance || diff < -tolerance {
			t.Errorf("fault %d (%s %s): arena TTR %s, workload outage %s: off by more than %s", i, f.Action.Type, f.Action.TargetID, f.TTR, outage, tolerance)
		}
	}
	tw.Flush()
	t.Logf("arena vs the workload, per fault (%d acknowledged publishes):\n%s\n%s\nworkload connection: %s\nworkload failures:\n%s", w.Acked(), tb.String(), rep, strings.Join(w.Log(), "; "), strings.Join(failures, "\n"))
	if len(rep.Faults) != 6 {
		t.Errorf("%d faults landed, want 6; injection errors: %+v", len(rep.Faults), rep.InjectionErrors)
	}
	if rep.ChecksRun != 3*(len(rep.Faults)+1) || rep.ChecksPassed != rep.ChecksRun {
		t.Errorf("checks: %d of %d passed, want 3 checks after each of the %d faults and at the end", rep.ChecksPassed, rep.ChecksRun, len(rep.Faults))
	}
	for _, c := range rep.Checks {
		if !c.Passed {
			t.Errorf("check %s at %s: %s", c.Name, c.At, c.Error)
		}
	}
}

// leaderBefore returns the meta leader that a majority of the servers named
// in the last poll that ended before t.
func leaderBefore(views []leaderView, mu *sync.Mutex, t time.Time) string {
	mu.Lock()
	defer mu.Unlock()
	for i := len(views) - 1; i >= 0; i-- {
		if !views[i].at.Before(t) {
			continue
		}
		count := map[string]int{}
		for _, l := range views[i].views {
			count[l]++
		}
		for l, n := range count {
			if l != "" && n >= len(Nodes)/2+1 {
				return l
			}
		}
		return ""
	}
	return ""
}

func ttrText(f engine.FaultOutcome) string {
	if !f.Recovered {
		return "unrecovered"
	}
	if !f.Degraded {
		return "0 (no impact)"
	}
	return f.TTR.String()
}
