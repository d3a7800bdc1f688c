package arenatest_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	. "github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/sim"
)

// startAPI adds an HTTP service on node "api" (restarted 2s after a kill)
// and a client node, and returns the probe: a GET with a 500ms timeout.
func startAPI(t *testing.T, w *sim.World) fault.Probe {
	t.Helper()
	var srv *http.Server
	_, err := w.AddNode("api", sim.NodeConfig{Type: "service", RestartAfter: 2 * time.Second,
		Start: func(ctx context.Context, n *sim.Node) error {
			l, err := n.Listen(":80")
			if err != nil {
				return err
			}
			srv = &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) { io.WriteString(rw, "ok") })}
			go srv.Serve(l)
			return nil
		},
		Stop: func(ctx context.Context, n *sim.Node) error { return srv.Close() },
	})
	if err != nil {
		t.Fatal(err)
	}
	client, err := w.AddNode("client", sim.NodeConfig{Type: "client"})
	if err != nil {
		t.Fatal(err)
	}
	c := client.HTTPClient(500 * time.Millisecond)
	return func(ctx context.Context) error {
		resp, err := c.Get("http://api/")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
}

// A service on the simulated network, a kill and a partition: Run inside
// Simulate runs against the world in simulated time, with Simulate's seed.
func TestSimulate(t *testing.T) {
	var rep *scenario.Report
	Simulate(t, func(t *testing.T, w *sim.World) {
		probe := startAPI(t, w)
		sc := &scenario.Scenario{Name: "api-chaos", Config: scenario.Config{Cooldown: clock.Duration(20 * time.Second)},
			Actions: []scenario.Step{
				{Delay: clock.Duration(5 * time.Second), Action: fault.Action{Type: fault.KillAgent, TargetID: "api"}},
				{Delay: clock.Duration(15 * time.Second), Action: fault.Action{Type: fault.NetworkPartition, TargetID: "api",
					Metadata: map[string]any{"duration": "5s"}}},
			},
			Expect: scenario.Gate{AllRecovered: true}}
		rep = Run(t, sc, WithProbe(probe))
	}, WithSeed(11))
	if rep == nil {
		t.Fatal("no report")
	}
	if rep.Clock != clock.KindSimulated || rep.Seed != 11 {
		t.Errorf("clock %q, seed %d; want simulated (synctest), 11", rep.Clock, rep.Seed)
	}
	if len(rep.Faults) != 2 {
		t.Fatalf("faults: %+v", rep.Faults)
	}
	kill, part := rep.Faults[0], rep.Faults[1]
	// The kill heals when the supervisor restarts the node (2s) and the
	// probe has seen three good samples; the partition when it is lifted.
	if !kill.Recovered || kill.TTR.D() < 2*time.Second || kill.TTR.D() > 3*time.Second {
		t.Errorf("kill: recovered %v in %s, want 2-3s (the restart)", kill.Recovered, kill.TTR)
	}
	if !part.Recovered || part.TTR.D() < 5*time.Second || part.TTR.D() > 6*time.Second {
		t.Errorf("partition: recovered %v in %s, want 5-6s (its lift)", part.Recovered, part.TTR)
	}
}

// child runs the test named by ARENATEST_CHILD in a test binary of its
// own and returns its output: the misuse cases end the binary.
func child(t *testing.T, name string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), "ARENATEST_CHILD="+name)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("%s: want the child to fail, got %v:\n%s", name, err, out)
	}
	return string(out)
}

func isChild(name string) bool { return os.Getenv("ARENATEST_CHILD") == name }

// A goroutine that outlives the world is named, with who started it,
// instead of synctest's bare "deadlock" panic; one the test function
// started is the test's to stop, not a node's Stop hook's.
func TestSimulateNamesGoroutinesLeft(t *testing.T) {
	if isChild(t.Name()) {
		Simulate(t, func(t *testing.T, w *sim.World) {
			forever := make(chan struct{})
			go waitForever(forever)
		})
		return
	}
	out := child(t, t.Name())
	for _, want := range []string{
		"arena: simulation: goroutines still running a simulated minute after the world closed:",
		"arenatest_test.waitForever [chan receive (durable)], started by github.com/ares-arena/arena/arenatest_test.TestSimulateNamesGoroutinesLeft.func1 (the test function)",
		"fix: 1 goroutine was started by the test function, not by a node's Start: stop it before the test function returns",
		"arena: replay the same schedule: go test -run '^TestSimulateNamesGoroutinesLeft$' -arena.seed=",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "panic:") {
		t.Errorf("synctest's deadlock panic was not caught:\n%s", out)
	}
	if strings.Contains(out, "Stop hook") {
		t.Errorf("the test's own goroutine is blamed on a node's Stop hook:\n%s", out)
	}
}

func waitForever(ch chan struct{}) { <-ch }

// A real socket inside the bubble: simulated time cannot move, and the
// watchdog ends the test with a message that names the goroutine and the
// fix, instead of a hang until go test's timeout.
func TestSimulateRealSocket(t *testing.T) {
	if isChild(t.Name()) {
		ln, err := net.Listen("tcp", "127.0.0.1:0") // outside the bubble: accepts, never answers
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			c, err := ln.Accept()
			if err == nil {
				defer c.Close()
				time.Sleep(time.Hour)
			}
		}()
		Simulate(t, func(t *testing.T, w *sim.World) {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			c.Read(make([]byte, 1))
		}, WithWatchdog(2*time.Second))
		return
	}
	out := child(t, t.Name())
	for _, want := range []string{
		"arena: simulation TestSimulateRealSocket made no progress for 2s of wall time",
		"waiting on a real socket or file (the net package, not sim's network)",
		"fix: give the system sim's network",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A system whose goroutines arena does not control, behind a runtime whose
// Clock() is a VirtualClock: refused, with the cause and the fix.
func TestVirtualClockUncontrolledRuntime(t *testing.T) {
	rt := &clockedRuntime{clock: clock.NewVirtual(time.Time{})}
	rec := record("TestRaft", func(t TB) { Run(t, "leader-failover", WithRuntime(rt)) })
	want := "arenatest.Run: the runtime's Clock() is a *clock.Virtual, but arena does not control its system's goroutines and timers"
	if got := rec.errorText(); !strings.Contains(got, want) || !strings.Contains(got, "arenatest.Simulate") {
		t.Errorf("Run = %q, want %q and the fix (Simulate)", got, want)
	}
}

// clockedRuntime is a runtime that follows a VirtualClock by its own
// account only: it does not say that arena controls its goroutines.
type clockedRuntime struct{ clock clock.Clock }

func (r *clockedRuntime) Clock() clock.Clock { return r.clock }
func (r *clockedRuntime) ListAgents(context.Context) ([]fault.AgentInfo, error) {
	return []fault.AgentInfo{{ID: "a", Type: fault.TypeLeader, Status: fault.StatusRunning}}, nil
}
func (r *clockedRuntime) StopAgent(context.Context, string) error { return nil }

// A test function that blocks for good (every goroutine of the bubble
// waits on another) is named, instead of synctest's bare deadlock panic.
func TestSimulateNamesADeadlock(t *testing.T) {
	if isChild(t.Name()) {
		Simulate(t, func(t *testing.T, w *sim.World) {
			waitForever(make(chan struct{}))
		})
		return
	}
	out := child(t, t.Name())
	for _, want := range []string{
		"arena: simulation: every goroutine of the bubble is blocked for good (deadlock: all goroutines in bubble are blocked):",
		"arenatest_test.waitForever [chan receive (durable)], started by testing/synctest.testingSynctestTest",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
