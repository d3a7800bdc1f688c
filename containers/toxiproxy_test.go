package containers_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
)

// roundTrip is the fastest of n GET /health round trips to base, from the
// host, on one kept-alive connection. A latency toxic delays each request
// by the same amount, and a busy CPU can only add to it: the fastest round
// trip is the one that measures the toxic, not the machine's load.
func roundTrip(t *testing.T, base string, n int) time.Duration {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second}
	defer c.CloseIdleConnections()
	var ds []time.Duration
	for range n {
		start := time.Now()
		resp, err := c.Get(base + agentapi.PathHealth)
		if err != nil {
			t.Fatalf("GET %s: %v", base, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ds = append(ds, time.Since(start))
	}
	return slices.Min(ds)
}

// upload sends a body of size bytes to the agent (refused once read in
// full: an unknown field) and returns how long the exchange took.
func upload(t *testing.T, base string, size int) (time.Duration, error) {
	t.Helper()
	body := `{"pad":"` + strings.Repeat("x", size-10) + `"}`
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	start := time.Now()
	resp, err := c.Post(base+agentapi.PathTasks, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return time.Since(start), nil
}

// fastestUpload is the fastest of three uploads of size bytes through
// base. Toxiproxy's bandwidth toxic sends a capped stream in 100ms slices
// whose waits a busy CPU stretches: like the machine's load on a free
// upload, it can only slow a transfer, so the fastest upload is the one
// that measures the cap, and one faster than the cap is still caught.
func fastestUpload(t *testing.T, base string, size int) time.Duration {
	t.Helper()
	var fastest time.Duration
	for range 3 {
		took, err := upload(t, base, size)
		if err != nil {
			t.Fatal(err)
		}
		if fastest == 0 || took < fastest {
			fastest = took
		}
	}
	return fastest
}

// throughput is the rate, in bytes per second, of the fastest upload of
// size bytes through base, net of free, the time it takes without a cap.
func throughput(t *testing.T, base string, size int, free time.Duration) (float64, time.Duration) {
	t.Helper()
	took := fastestUpload(t, base, size)
	return float64(size) / (took - free).Seconds(), took
}

// TestNetworkFaultsThroughToxiproxy measures the network faults from a
// client on the host, through the agent's proxy, as the figures ask:
// a 200ms latency adds 200ms ± 20ms to a round trip, a bandwidth cap holds
// throughput within 10%, a reset resets, and each is gone when lifted at its
// duration (a real-time run) and when the runtime closes.
func TestNetworkFaultsThroughToxiproxy(t *testing.T) {
	t.Parallel()
	rt := containers.ForTest(t, containers.WithProject(testProject), containers.WithReferenceAgents(1))
	p, err := containers.NewProxied(rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	svc := engine.NewService(fault.NewInjectorFor(p, fault.WithDAG(p)), nil, nil, engine.WithProbe(p.Probe))
	ctx := context.Background()
	waitHealthy(t, rt, 10*time.Second)
	base, err := p.ProxyEndpoint("worker-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Probe(ctx); err != nil {
		t.Fatalf("probe through the proxies: %v", err)
	}
	before := roundTrip(t, base, 21)

	t.Run("latency 200ms, lifted at its duration", func(t *testing.T) {
		done := make(chan *engine.Report, 1)
		go func() {
			rep, _ := engine.RunSchedule(ctx, svc, engine.RunOptions{Seed: 1, Duration: 4 * time.Second},
				engine.Step{Action: fault.Action{Type: fault.NetworkLatency, TargetID: "worker-1", Metadata: map[string]any{"latency": "200ms", "duration": "3s"}}})
			done <- rep
		}()
		// Two streams of worker-1's proxy from the host and of the link
		// orchestrator-0 → worker-1.
		eventually(t, 2*time.Second, "the latency toxics", func() (bool, string) {
			return len(p.Toxics("worker-1")) == 4, strings.Join(p.Toxics("worker-1"), ",")
		})
		during := roundTrip(t, base, 9)
		added := during - before
		t.Logf("round trip %s before, %s under network_latency 200ms: +%s", before, during, added)
		if added < 180*time.Millisecond || added > 220*time.Millisecond {
			t.Errorf("network_latency 200ms added %s to the round trip, want 200ms ± 20ms", added)
		}
		rep := <-done
		if got := p.Toxics("worker-1"); len(got) != 0 {
			t.Errorf("after the run: toxics %v, want none (lifted at 3s)", got)
		}
		if rep == nil || len(rep.Faults) != 1 || rep.Faults[0].Lifted == nil {
			t.Errorf("report: %+v, want one fault lifted", rep)
		}
		if after := roundTrip(t, base, 9); after > before+20*time.Millisecond {
			t.Errorf("round trip %s after the lift, want back near %s", after, before)
		}
	})

	t.Run("bandwidth 50 kB/s within 10%", func(t *testing.T) {
		const size = 60_000
		free := fastestUpload(t, base, size)
		res := svc.Execute(ctx, fault.Action{Type: fault.NetworkBandwidth, TargetID: "worker-1", Metadata: map[string]any{"rate": 50_000}})
		if !res.Success {
			t.Fatalf("network_bandwidth did not land: %s", res.Error)
		}
		rate, took := throughput(t, base, size, free)
		t.Logf("%d bytes in %s free, %s under a 50 kB/s cap (fastest of 3): %.0f B/s", size, free, took, rate)
		if rate < 45_000 || rate > 55_000 {
			t.Errorf("throughput %.0f B/s under a cap of 50000, want within 10%%", rate)
		}
		if err := svc.LiftFault(ctx, res.Action.ID); err != nil {
			t.Fatal(err)
		}
		if again, _ := upload(t, base, size); again > free+200*time.Millisecond {
			t.Errorf("after the lift the upload took %s, want about %s", again, free)
		}
	})

	t.Run("connection_reset resets", func(t *testing.T) {
		res := svc.Execute(ctx, fault.Action{Type: fault.ConnectionReset, TargetID: "worker-1"})
		if !res.Success {
			t.Fatalf("connection_reset did not land: %s", res.Error)
		}
		c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		_, err := c.Get(base + agentapi.PathHealth)
		if !errors.Is(err, syscall.ECONNRESET) && (err == nil || !strings.Contains(err.Error(), "EOF")) {
			t.Errorf("GET under connection_reset = %v, want a reset", err)
		}
		t.Logf("GET under connection_reset: %v", err)
		if perr := p.Probe(ctx); perr == nil {
			t.Error("probe healthy under connection_reset of worker-1, want it to see the reset")
		}
		if err := svc.LiftFault(ctx, res.Action.ID); err != nil {
			t.Fatal(err)
		}
		resp, err := c.Get(base + agentapi.PathHealth)
		if err != nil {
			t.Fatalf("GET after the lift: %v", err)
		}
		resp.Body.Close()
	})

	t.Run("injection latency: a toxic vs a docker pause", func(t *testing.T) {
		// timeIt lands a, then lifts it.
		timeIt := func(a fault.Action) time.Duration {
			start := time.Now()
			res := svc.Execute(ctx, a)
			if !res.Success {
				t.Fatalf("%s did not land: %s", a.Type, res.Error)
			}
			took := time.Since(start)
			if err := svc.LiftFault(ctx, res.Action.ID); err != nil {
				t.Fatal(err)
			}
			return took
		}
		var toxic, pause []time.Duration
		for range 5 {
			toxic = append(toxic, timeIt(fault.Action{Type: fault.NetworkLatency, TargetID: "worker-1"}))
			pause = append(pause, timeIt(fault.Action{Type: fault.PauseAgent, TargetID: "worker-1"}))
		}
		slices.Sort(toxic)
		slices.Sort(pause)
		t.Logf("injection latency through the service, median of 5: toxic %s, docker pause %s", toxic[2], pause[2])
	})

	// Rollback on exit: closing the runtime removes every toxic with the
	// proxies.
	res := svc.Execute(ctx, fault.Action{Type: fault.NetworkLatency, TargetID: "worker-1"})
	if !res.Success {
		t.Fatal(res.Error)
	}
	p.Close(ctx)
	if got := p.Toxics("worker-1"); len(got) != 0 {
		t.Errorf("after Close: toxics %v, want none", got)
	}
}
