package raftsim

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/sim"
)

var (
	realRuns      = flag.Int("raftsim.realtime", 0, "real-time runs of TestAgreement's 10-minute schedule (they run at once, 10 minutes of wall time; 0 skips the test)")
	simulatedRuns = flag.Int("raftsim.simulated", 10, "simulated runs of TestAgreement's schedule")
)

// tenMinutes is one schedule of 10 faults over 10 minutes.
var tenMinutes = func() []engine.Step {
	step := func(at time.Duration, typ fault.Type, target string, meta map[string]any) engine.Step {
		return engine.Step{At: at, Action: fault.Action{Type: typ, TargetID: target, Metadata: meta}}
	}
	return []engine.Step{
		step(30*time.Second, fault.KillLeader, "", nil),
		step(90*time.Second, fault.NetworkPartition, "type:follower", map[string]any{"duration": "10s"}),
		step(150*time.Second, fault.NetworkLatency, "type:leader", map[string]any{"latency": "400ms", "duration": "20s"}),
		step(210*time.Second, fault.KillAgent, "type:follower", nil),
		step(270*time.Second, fault.PauseAgent, "type:leader", map[string]any{"duration": "5s"}),
		step(330*time.Second, fault.ConnectionReset, "type:follower", map[string]any{"duration": "15s"}),
		step(390*time.Second, fault.NetworkPartition, "type:leader", map[string]any{"duration": "8s"}),
		step(450*time.Second, fault.NetworkBandwidth, "type:leader", map[string]any{"rate": 20000, "duration": "15s"}),
		step(510*time.Second, fault.KillLeader, "", nil),
		step(560*time.Second, fault.NetworkLatency, "type:follower", map[string]any{"latency": "200ms", "jitter": "100ms", "duration": "20s"}),
	}
}()

// playTen plays the 10-minute schedule on a fresh cluster of w, on
// whatever clock time.Now reads: the bubble's, or the wall's.
func playTen(w *sim.World) (*engine.Report, error) {
	c, err := NewCluster(w, Config{SeedRaft: true})
	if err != nil {
		return nil, err
	}
	w.SetRoles(c.Roles)
	wl, err := StartWorkload(c, WorkloadConfig{})
	if err != nil {
		return nil, err
	}
	defer wl.Stop()
	svc := engine.NewService(fault.NewInjectorFor(w), events.NewMemoryStore(), nil,
		engine.WithProbe(wl.Probe), engine.WithChecks(wl.Checks()...), engine.WithSeed(10))
	time.Sleep(5 * time.Second) // an elected leader, the clients' first acknowledgements
	return engine.RunSchedule(context.Background(), svc, engine.RunOptions{Seed: 10, Duration: 10 * time.Minute}, tenMinutes...)
}

// TestAgreement plays one 10-minute schedule in simulated time (a bubble)
// and in real time against the same system, and checks that every
// simulated score is inside the spread of the real-time ones, widened by
// 2 points. It is a measurement of ten real minutes: it runs with
// -raftsim.realtime=N (N runs at once), and is skipped otherwise.
func TestAgreement(t *testing.T) {
	if *realRuns == 0 {
		t.Skip("a measurement of 10 real minutes: go test -run TestAgreement -raftsim.realtime=3")
	}
	var real []float64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range *realRuns {
		wg.Go(func() {
			w := sim.New(sim.WithSeed(10))
			defer w.Close(context.Background())
			rep, err := playTen(w)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			real = append(real, rep.Score.Total)
			t.Logf("real time: %s, score %.1f, %d/%d recovered", rep.Clock, rep.Score.Total, rep.Recovered, rep.Landed)
		})
	}
	var simulated []float64
	for range *simulatedRuns {
		synctest.Test(t, func(t *testing.T) {
			w := sim.New(sim.WithSeed(10))
			defer w.Close(context.Background())
			rep, err := playTen(w)
			if err != nil {
				t.Fatal(err)
			}
			simulated = append(simulated, rep.Score.Total)
			if rep.Clock != clock.KindSimulated {
				t.Errorf("clock %q in the bubble", rep.Clock)
			}
		})
	}
	wg.Wait()
	if len(real) == 0 {
		t.Fatal("no real-time run finished")
	}
	lo, hi := real[0], real[0]
	for _, s := range real {
		lo, hi = min(lo, s), max(hi, s)
	}
	var out []string
	for _, s := range simulated {
		if s < lo-2 || s > hi+2 {
			out = append(out, fmt.Sprintf("%.1f", s))
		}
	}
	t.Logf("one 10-minute schedule: real time %s, simulated %s", spread(real), spread(simulated))
	if len(out) > 0 {
		t.Errorf("simulated scores %s outside the real-time spread %.1f–%.1f (± 2)", strings.Join(out, ", "), lo, hi)
	}
}
