package containers_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// proxied starts the reference agents with workers workers behind
// Toxiproxy, and a service that lands faults on them.
func proxied(t *testing.T, workers int, opts ...containers.Option) (*containers.Proxied, *engine.Service) {
	t.Helper()
	opts = append([]containers.Option{containers.WithProject(testProject), containers.WithReferenceAgents(workers)}, opts...)
	rt := containers.ForTest(t, opts...)
	p, err := containers.NewProxied(rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	waitHealthy(t, rt, 20*time.Second)
	return p, engine.NewService(fault.NewInjectorFor(p, fault.WithDAG(p)), nil, nil, engine.WithProbe(p.Probe))
}

func linkURL(t *testing.T, p *containers.Proxied, from, to string) string {
	t.Helper()
	u, err := p.LinkEndpoint(from, to)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// handed is how many tasks the agent has handed on so far.
func handed(t *testing.T, p *containers.Proxied, id string) int {
	return state(t, p.Runtime, id).Tasks.Handed
}

// isReset says whether err is what a client sees of a reset connection.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || (err != nil && strings.Contains(err.Error(), "EOF"))
}

// TestLinksThroughToxiproxy: the reference agents reach their routes
// through proxies, and a network fault with a peer lands on that link
// alone. Each is measured from a client on the host that dials the link's
// proxy, as the from agent does (LinkEndpoint): what the client sees is
// what the agent sees.
func TestLinksThroughToxiproxy(t *testing.T) {
	t.Parallel()
	p, svc := proxied(t, 2)
	ctx := context.Background()
	leaderOrch := linkURL(t, p, "leader-0", "orchestrator-0")
	orchW1 := linkURL(t, p, "orchestrator-0", "worker-1")
	orchW2 := linkURL(t, p, "orchestrator-0", "worker-2")
	orchHost, _ := p.ProxyEndpoint("orchestrator-0")

	t.Run("the agents are wired to the proxies", func(t *testing.T) {
		env := inspect(t, p.Runtime, "leader-0").Config.Env
		u, _ := url.Parse(leaderOrch)
		want := []string{
			"AGENTD_ROUTE_URLS=orchestrator-0=" + leaderOrch,
			containers.LinkEnv("orchestrator-0") + "URL=" + leaderOrch,
			containers.LinkEnv("orchestrator-0") + "HOST=" + u.Hostname(),
			containers.LinkEnv("orchestrator-0") + "PORT=" + u.Port(),
		}
		for _, w := range want {
			if !slices.Contains(env, w) {
				t.Errorf("leader-0's environment lacks %s: %v", w, env)
			}
		}
		if _, err := p.LinkEndpoint("worker-1", "leader-0"); !errors.Is(err, containers.ErrPeerNotProxied) {
			t.Errorf("LinkEndpoint(worker-1, leader-0) = %v, want ErrPeerNotProxied", err)
		}
		_, err := p.InjectLatency(ctx, "worker-1", fault.Latency{Latency: time.Second, Peer: "leader-0"})
		if !errors.Is(err, containers.ErrPeerNotProxied) {
			t.Errorf("latency between worker-1 and leader-0 (no link) = %v, want ErrPeerNotProxied", err)
		}
		// What orchestrator-0 receives: the requests of leader-0 (upstream
		// on leader-0's link to it), the responses of worker-1 (downstream
		// on its link to worker-1), the requests from the host.
		for dir, want := range map[fault.Direction][]string{
			fault.DirectionInbound: {"leader-0->orchestrator-0/network_latency_upstream",
				"orchestrator-0->worker-1/network_latency_downstream", "orchestrator-0->worker-2/network_latency_downstream",
				"orchestrator-0/network_latency_upstream"},
			fault.DirectionOutbound: {"leader-0->orchestrator-0/network_latency_downstream",
				"orchestrator-0->worker-1/network_latency_upstream", "orchestrator-0->worker-2/network_latency_upstream",
				"orchestrator-0/network_latency_downstream"},
		} {
			lift, err := p.InjectLatency(ctx, "orchestrator-0", fault.Latency{Latency: time.Millisecond, Direction: dir})
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(want)
			if got := p.Toxics("orchestrator-0"); !slices.Equal(got, want) {
				t.Errorf("%s latency on orchestrator-0: toxics %v, want %v", dir, got, want)
			}
			if err := lift(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if left := p.ProxyToxics(); len(left) != 0 {
			t.Errorf("toxics left after the lift: %v", left)
		}
	})

	t.Run("agentd hands tasks on through the link", func(t *testing.T) {
		eventually(t, 10*time.Second, "tasks handed by leader-0 and orchestrator-0", func() (bool, string) {
			return handed(t, p, "leader-0") > 0 && handed(t, p, "orchestrator-0") > 0, ""
		})
		// 1s on the link leader-0 → orchestrator-0: a hand-off takes longer
		// than agentd's 300ms route timeout, so leader-0 hands nothing on,
		// while orchestrator-0 keeps handing on what it already holds.
		lift, err := p.InjectLatency(ctx, "orchestrator-0", fault.Latency{Latency: time.Second, Peer: "leader-0"})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond) // a hand-off under way when it landed ends
		l0, o0 := handed(t, p, "leader-0"), handed(t, p, "orchestrator-0")
		time.Sleep(2 * time.Second)
		l1, o1 := handed(t, p, "leader-0"), handed(t, p, "orchestrator-0")
		if err := lift(ctx); err != nil {
			t.Fatal(err)
		}
		t.Logf("in 2s under 1s latency on leader-0 → orchestrator-0: leader-0 handed %d, orchestrator-0 %d", l1-l0, o1-o0)
		if l1 != l0 {
			t.Errorf("leader-0 handed %d tasks on through a link slower than its route timeout, want 0", l1-l0)
		}
		eventually(t, 10*time.Second, "leader-0 hands tasks on again after the lift", func() (bool, string) {
			return handed(t, p, "leader-0") > l1, ""
		})
	})

	t.Run("latency 200ms on one link only", func(t *testing.T) {
		before := map[string]time.Duration{"leader-0→orchestrator-0": roundTrip(t, leaderOrch, 21),
			"orchestrator-0→worker-1": roundTrip(t, orchW1, 21), "host→orchestrator-0": roundTrip(t, orchHost, 21)}
		res := svc.Execute(ctx, fault.Action{Type: fault.NetworkLatency, TargetID: "orchestrator-0",
			Metadata: map[string]any{"latency": "200ms", "peer": "leader-0"}})
		if !res.Success {
			t.Fatalf("network_latency with a peer did not land: %s", res.Error)
		}
		if got, want := p.Toxics("orchestrator-0"), []string{
			"leader-0->orchestrator-0/network_latency_downstream", "leader-0->orchestrator-0/network_latency_upstream",
		}; !slices.Equal(got, want) {
			t.Errorf("Toxics(orchestrator-0) = %v, want %v", got, want)
		}
		during := map[string]time.Duration{"leader-0→orchestrator-0": roundTrip(t, leaderOrch, 9),
			"orchestrator-0→worker-1": roundTrip(t, orchW1, 21), "host→orchestrator-0": roundTrip(t, orchHost, 21)}
		for l, d := range during {
			added := d - before[l]
			t.Logf("%s: round trip %s before, %s under network_latency 200ms peer leader-0: %+v", l, before[l], d, added)
			want := time.Duration(0)
			if l == "leader-0→orchestrator-0" {
				want = 200 * time.Millisecond
			}
			if added < want-20*time.Millisecond || added > want+20*time.Millisecond {
				t.Errorf("%s: network_latency 200ms on leader-0 → orchestrator-0 added %s, want %s ± 20ms", l, added, want)
			}
		}
		if err := svc.LiftFault(ctx, res.Action.ID); err != nil {
			t.Fatal(err)
		}
		if after := roundTrip(t, leaderOrch, 9); after > before["leader-0→orchestrator-0"]+20*time.Millisecond {
			t.Errorf("leader-0 → orchestrator-0 round trip %s after the lift, want back near %s", after, before["leader-0→orchestrator-0"])
		}
	})

	t.Run("bandwidth 50 kB/s on worker-1's links", func(t *testing.T) {
		const size = 60_000
		free, freeOther := fastestUpload(t, orchW1, size), fastestUpload(t, orchW2, size)
		res := svc.Execute(ctx, fault.Action{Type: fault.NetworkBandwidth, TargetID: "worker-1", Metadata: map[string]any{"rate": 50_000}})
		if !res.Success {
			t.Fatalf("network_bandwidth did not land: %s", res.Error)
		}
		rate, took := throughput(t, orchW1, size, free)
		t.Logf("orchestrator-0 → worker-1: %d bytes in %s free, %s under a 50 kB/s cap (fastest of 3): %.0f B/s", size, free, took, rate)
		if rate < 45_000 || rate > 55_000 {
			t.Errorf("throughput %.0f B/s on the link under a cap of 50000, want within 10%%", rate)
		}
		other, err := upload(t, orchW2, size)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("orchestrator-0 → worker-2 meanwhile: %s (%s free)", other, freeOther)
		if other > freeOther+200*time.Millisecond {
			t.Errorf("orchestrator-0 → worker-2 upload took %s under worker-1's cap, want about %s", other, freeOther)
		}
		if err := svc.LiftFault(ctx, res.Action.ID); err != nil {
			t.Fatal(err)
		}
		if again, _ := upload(t, orchW1, size); again > free+200*time.Millisecond {
			t.Errorf("after the lift the upload took %s, want about %s", again, free)
		}
	})

	t.Run("connection_reset on worker-1's links", func(t *testing.T) {
		res := svc.Execute(ctx, fault.Action{Type: fault.ConnectionReset, TargetID: "worker-1"})
		if !res.Success {
			t.Fatalf("connection_reset did not land: %s", res.Error)
		}
		c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		_, err := c.Get(orchW1 + agentapi.PathHealth)
		t.Logf("GET through orchestrator-0 → worker-1 under connection_reset: %v", err)
		if !isReset(err) {
			t.Errorf("GET through orchestrator-0 → worker-1 under connection_reset = %v, want a reset", err)
		}
		if resp, err := c.Get(orchW2 + agentapi.PathHealth); err != nil {
			t.Errorf("GET through orchestrator-0 → worker-2 under worker-1's reset: %v", err)
		} else {
			resp.Body.Close()
		}
		if err := svc.LiftFault(ctx, res.Action.ID); err != nil {
			t.Fatal(err)
		}
		resp, err := c.Get(orchW1 + agentapi.PathHealth)
		if err != nil {
			t.Fatalf("GET through orchestrator-0 → worker-1 after the lift: %v", err)
		}
		resp.Body.Close()
	})

	t.Run("bandwidth and resets on one link of orchestrator-0", func(t *testing.T) {
		const size = 60_000
		free := map[string]time.Duration{}
		for _, u := range []string{orchW1, orchW2, leaderOrch, orchHost} {
			free[u] = fastestUpload(t, u, size)
		}
		liftRate, err := p.LimitLinkBandwidth(ctx, "orchestrator-0", "worker-1", 50_000)
		if err != nil {
			t.Fatal(err)
		}
		rate, took := throughput(t, orchW1, size, free[orchW1])
		t.Logf("orchestrator-0 → worker-1 under a 50 kB/s cap on that link: %d bytes in %s (%s free; fastest of 3): %.0f B/s", size, took, free[orchW1], rate)
		if rate < 45_000 || rate > 55_000 {
			t.Errorf("throughput %.0f B/s on the link under a cap of 50000, want within 10%%", rate)
		}
		for _, u := range []string{orchW2, leaderOrch, orchHost} {
			if d, err := upload(t, u, size); err != nil || d > free[u]+200*time.Millisecond {
				t.Errorf("upload through %s (another path of orchestrator-0) = %s, %v; want about %s", u, d, err, free[u])
			}
		}
		liftReset, err := p.ResetLinkConnections(ctx, "orchestrator-0", "worker-2", 0)
		if err != nil {
			t.Fatal(err)
		}
		c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		if _, err := c.Get(orchW2 + agentapi.PathHealth); !isReset(err) {
			t.Errorf("GET through orchestrator-0 → worker-2 under a reset of that link = %v, want a reset", err)
		}
		for _, u := range []string{leaderOrch, orchHost} {
			if resp, err := c.Get(u + agentapi.PathHealth); err != nil {
				t.Errorf("GET through %s (another path of orchestrator-0): %v", u, err)
			} else {
				resp.Body.Close()
			}
		}
		for _, lift := range []fault.Lift{liftRate, liftReset} {
			if err := lift(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if left := p.ProxyToxics(); len(left) != 0 {
			t.Errorf("toxics left after the lifts: %v", left)
		}
	})

	t.Run("the link reaches its agent after a kill and restart", func(t *testing.T) {
		st0 := state(t, p.Runtime, "worker-1").Started
		if err := p.StopAgent(ctx, "worker-1"); err != nil {
			t.Fatal(err)
		}
		c := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		eventually(t, 30*time.Second, "worker-1 restarted and answering through orchestrator-0 → worker-1", func() (bool, string) {
			resp, err := c.Get(orchW1 + agentapi.PathState)
			if err != nil {
				return false, err.Error()
			}
			defer resp.Body.Close()
			st, err := p.State(ctx, "worker-1")
			return err == nil && st.Started.After(st0), "not restarted yet"
		})
		lift, err := p.InjectLatency(ctx, "worker-1", fault.Latency{Latency: 200 * time.Millisecond, Peer: "orchestrator-0"})
		if err != nil {
			t.Fatal(err)
		}
		d := roundTrip(t, orchW1, 5)
		if err := lift(ctx); err != nil {
			t.Fatal(err)
		}
		t.Logf("orchestrator-0 → worker-1 after the restart, under 200ms: %s", d)
		if d < 180*time.Millisecond {
			t.Errorf("round trip %s through the link after the restart under 200ms latency, want at least 180ms", d)
		}
	})
}

// networkSteps lands one fault of each network type, each lasting d:
// latency on the link leader-0 → orchestrator-0, a bandwidth cap on
// worker-1's links, resets on worker-2's.
func networkSteps(d string) []scenario.Step {
	return []scenario.Step{
		{Action: fault.Action{Type: fault.NetworkLatency, TargetID: "orchestrator-0",
			Metadata: map[string]any{"latency": "200ms", "peer": "leader-0", "duration": d}}},
		{Action: fault.Action{Type: fault.NetworkBandwidth, TargetID: "worker-1", Metadata: map[string]any{"rate": 50_000, "duration": d}}},
		{Action: fault.Action{Type: fault.ConnectionReset, TargetID: "worker-2", Metadata: map[string]any{"duration": d}}},
	}
}

// netProbe measures the three faults of networkSteps from the host,
// through the links' proxies.
type netProbe struct {
	p                          *containers.Proxied
	leaderOrch, orchW1, orchW2 string
	baseRTT, baseUpload        time.Duration
	uploadSize                 int
	t                          *testing.T
}

func newNetProbe(t *testing.T, p *containers.Proxied) *netProbe {
	n := &netProbe{p: p, t: t, uploadSize: 60_000,
		leaderOrch: linkURL(t, p, "leader-0", "orchestrator-0"), orchW1: linkURL(t, p, "orchestrator-0", "worker-1"), orchW2: linkURL(t, p, "orchestrator-0", "worker-2")}
	n.baseRTT = roundTrip(t, n.leaderOrch, 21)
	var err error
	if n.baseUpload, err = upload(t, n.orchW1, n.uploadSize); err != nil {
		t.Fatal(err)
	}
	return n
}

// measure returns the round trip through leader-0 → orchestrator-0, the
// upload time through orchestrator-0 → worker-1 and the error of a GET
// through orchestrator-0 → worker-2.
func (n *netProbe) measure() (rtt, up time.Duration, getErr error) {
	rtt = roundTrip(n.t, n.leaderOrch, 5)
	up, err := upload(n.t, n.orchW1, n.uploadSize)
	if err != nil {
		up = -1
	}
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, getErr := c.Get(n.orchW2 + agentapi.PathHealth)
	if getErr == nil {
		resp.Body.Close()
	}
	return rtt, up, getErr
}

// faulted says whether measure saw all three faults in place.
func (n *netProbe) faulted(rtt, up time.Duration, getErr error) bool {
	return rtt >= n.baseRTT+180*time.Millisecond && up > n.baseUpload+time.Second/2 && isReset(getErr)
}

// gone checks that nothing of the faults is left: no toxic in any proxy
// (as Toxiproxy reports them), no active fault in the service, and, from
// the host, each link as fast and open as before.
func (n *netProbe) gone(svc *engine.Service) {
	t := n.t
	t.Helper()
	if left := n.p.ProxyToxics(); len(left) != 0 {
		t.Errorf("toxics left in the proxies: %v", left)
	}
	for _, id := range []string{"orchestrator-0", "worker-1", "worker-2"} {
		if left := n.p.Toxics(id); len(left) != 0 {
			t.Errorf("Toxics(%s) = %v, want none", id, left)
		}
	}
	if active := svc.ActiveFaults(); len(active) != 0 {
		t.Errorf("ActiveFaults() = %+v, want none", active)
	}
	rtt, up, getErr := n.measure()
	rtt = roundTrip(t, n.leaderOrch, 15)
	t.Logf("after: round trip %s (%s before), upload %s (%s before), GET through orchestrator-0 → worker-2: %v", rtt, n.baseRTT, up, n.baseUpload, getErr)
	// Under half the latency: whatever a loaded machine adds, not the
	// toxic's 200ms.
	if rtt > n.baseRTT+100*time.Millisecond {
		t.Errorf("leader-0 → orchestrator-0: round trip %s, want back near %s", rtt, n.baseRTT)
	}
	if up < 0 || up > n.baseUpload+200*time.Millisecond {
		t.Errorf("orchestrator-0 → worker-1: upload took %s, want about %s", up, n.baseUpload)
	}
	if getErr != nil {
		t.Errorf("orchestrator-0 → worker-2: GET = %v, want an answer", getErr)
	}
}

// TestNetworkFaultsGoneAfterRun: latency on a link, a bandwidth cap and
// resets, measured in place from the host, are all gone (from Toxiproxy's
// proxies, from the service's active faults, and as a host client measures
// the links) after a run that was cancelled while they lasted, and after a
// run in which their duration ran out.
func TestNetworkFaultsGoneAfterRun(t *testing.T) {
	t.Parallel()
	p, svc := proxied(t, 2)
	n := newNetProbe(t, p)

	t.Run("cancelled mid-fault", func(t *testing.T) {
		n.t = t
		sc := &scenario.Scenario{Name: "network-held-for-an-hour", Config: scenario.Config{Cooldown: clock.Duration(10 * time.Minute)},
			Actions: networkSteps("1h")}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var during bool
		var rtt, up time.Duration
		var getErr error
		measured := make(chan struct{})
		go func() { // measure once all three are in place, then cancel, as a SIGINT would
			defer close(measured)
			for len(svc.ActiveFaults()) < 3 && ctx.Err() == nil {
				time.Sleep(20 * time.Millisecond)
			}
			rtt, up, getErr = n.measure()
			during = n.faulted(rtt, up, getErr)
			cancel()
		}()
		rep, err := scenario.Run(ctx, svc, sc)
		<-measured
		t.Logf("mid-fault: round trip %s (%s before), upload %s (%s before), GET through orchestrator-0 → worker-2: %v", rtt, n.baseRTT, up, n.baseUpload, getErr)
		if !during {
			t.Error("the faults were not all in place mid-run, as measured from the host")
		}
		if !errors.Is(err, context.Canceled) || rep == nil {
			t.Fatalf("run = %v, want it cancelled", err)
		}
		if rep.Report.Landed != 3 || len(rep.Report.Rollback) != 3 {
			t.Fatalf("landed %d, rollback %+v: want the three faults", rep.Report.Landed, rep.Report.Rollback)
		}
		for _, rb := range rep.Report.Rollback {
			if rb.Outcome != engine.RollbackLifted {
				t.Errorf("rollback of %s %s: %s %s", rb.Type, rb.TargetID, rb.Outcome, rb.Detail)
			}
		}
		n.gone(svc)
	})

	t.Run("after their duration", func(t *testing.T) {
		n.t = t
		ctx := context.Background()
		var steps []engine.Step
		for _, s := range networkSteps("3s") {
			steps = append(steps, engine.Step{Action: s.Action})
		}
		done := make(chan *engine.Report, 1)
		go func() {
			rep, _ := engine.RunSchedule(ctx, svc, engine.RunOptions{Seed: 1, Duration: 5 * time.Second}, steps...)
			done <- rep
		}()
		eventually(t, 3*time.Second, "the three faults active", func() (bool, string) {
			return len(svc.ActiveFaults()) == 3, ""
		})
		rtt, up, getErr := n.measure()
		t.Logf("during: round trip %s, upload %s, GET through orchestrator-0 → worker-2: %v", rtt, up, getErr)
		if !n.faulted(rtt, up, getErr) {
			t.Error("the faults were not all in place during the run, as measured from the host")
		}
		rep := <-done
		if rep == nil || len(rep.Faults) != 3 {
			t.Fatalf("report: %+v, want three faults", rep)
		}
		for _, f := range rep.Faults {
			if f.Lifted == nil {
				t.Errorf("%s %s not lifted at its duration: %s", f.Action.Type, f.Action.TargetID, f.LiftError)
			}
		}
		n.gone(svc)
	})
}

// buildLinkProbe builds testdata/linkprobe, a user agent that times round
// trips to its peers through the links WithLink gives it, into a FROM
// scratch image context in a temporary directory.
func buildLinkProbe(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(dir, "linkprobe"), "./testdata/linkprobe")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/linkprobe: %v\n%s", err, out)
	}
	df := "FROM scratch\nCOPY linkprobe /linkprobe\nEXPOSE 8080\nENTRYPOINT [\"/linkprobe\"]\n"
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(df), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// linkProbe is the image context of testdata/linkprobe (buildLinkProbe).
func linkProbe(t *testing.T) testcontainers.FromDockerfile {
	return testcontainers.FromDockerfile{Context: buildLinkProbe(t), Dockerfile: "Dockerfile"}
}

// probeRTT asks agent from, a linkprobe, for the fastest of nine round
// trips to agent to through its link, timed inside its container.
func probeRTT(t *testing.T, rt *containers.Runtime, from, to string) time.Duration {
	t.Helper()
	prober, ok := rt.Agent(from)
	if !ok {
		t.Fatalf("no agent %s", from)
	}
	resp, err := http.Get(prober.Endpoint() + "/rtt?n=9&to=" + to)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	ns, err := strconv.ParseInt(string(b), 10, 64)
	if resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("%s /rtt?to=%s: %s %s", from, to, resp.Status, b)
	}
	return time.Duration(ns)
}

// TestWithLinkFromInsideAContainer: a user agent opts in to links with
// WithLink and dials ARENA_LINK_<TO>_URL; a latency on one of its links,
// timed by the agent itself, adds the planned latency to that link alone.
func TestWithLinkFromInsideAContainer(t *testing.T) {
	t.Parallel()
	req := testcontainers.ContainerRequest{FromDockerfile: linkProbe(t), ExposedPorts: []string{"8080/tcp"}}
	p, _ := proxied(t, 1, containers.WithAgent("prober", fault.TypeWorker, req),
		containers.WithLink("prober", "worker-1"), containers.WithLink("prober", "orchestrator-0"))
	ctx := context.Background()
	rtt := func(to string) time.Duration { return probeRTT(t, p.Runtime, "prober", to) }
	before := map[string]time.Duration{"worker-1": rtt("worker-1"), "orchestrator-0": rtt("orchestrator-0")}
	lift, err := p.InjectLatency(ctx, "worker-1", fault.Latency{Latency: 200 * time.Millisecond, Peer: "prober"})
	if err != nil {
		t.Fatal(err)
	}
	for to, want := range map[string]time.Duration{"worker-1": 200 * time.Millisecond, "orchestrator-0": 0} {
		d := rtt(to)
		added := d - before[to]
		t.Logf("prober → %s, timed in the prober: %s before, %s under network_latency 200ms on worker-1 peer prober: %+v", to, before[to], d, added)
		if added < want-20*time.Millisecond || added > want+20*time.Millisecond {
			t.Errorf("prober → %s: added %s, want %s ± 20ms", to, added, want)
		}
	}
	if err := lift(ctx); err != nil {
		t.Fatal(err)
	}
	if d := rtt("worker-1"); d > before["worker-1"]+100*time.Millisecond {
		t.Errorf("prober → worker-1 after the lift: %s, want back near %s", d, before["worker-1"])
	}
	// The prober does not serve the fault-control contract: its 404 is
	// fault.ErrUnsupported, as the same answer is on every runtime.
	if _, err := p.ToolTimeout(ctx, "prober", time.Second); !errors.Is(err, fault.ErrUnsupported) ||
		!strings.Contains(err.Error(), "prober") || !strings.Contains(err.Error(), "tool_timeout") {
		t.Errorf("tool_timeout on an agent without the contract = %v, want fault.ErrUnsupported naming prober and tool_timeout", err)
	}
}
