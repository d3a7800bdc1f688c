package containers_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/fault"
)

// BenchmarkInjection measures how long pause, kill and partition take to
// land through the Docker API (what the runtime does), side by side with the
// docker CLI doing the same, and through the Runtime's own methods (which
// inspect first, and for kill signal the process from this host). Only the
// injection is timed; the undo (unpause, start, reconnect) is not.
//
//	go test -run='^$' -bench=Injection -benchtime=50x ./containers/
func BenchmarkInjection(b *testing.B) {
	docker, err := exec.LookPath("docker")
	if err != nil {
		b.Skip("no docker CLI to compare with")
	}
	rt := containers.ForTest(b, containers.WithProject(testProject), containers.WithReferenceAgents(1),
		containers.WithPartitionHealing(0))
	ctx := context.Background()
	a, _ := rt.Agent("worker-1")
	id, cli, net := a.ContainerID(), rt.Docker(), rt.Network()
	run := func(b *testing.B, args ...string) {
		if out, err := exec.Command(docker, args...).CombinedOutput(); err != nil {
			b.Fatalf("docker %v: %v\n%s", args, err, out)
		}
	}
	// must(b)(f()) fails b if f's error is not nil.
	must := func(b *testing.B) func(any, error) {
		return func(_ any, err error) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	// waitState waits until Docker reports the container running, and
	// paused or not: a pause or unpause that returned is not always what
	// the next call sees yet, and a fresh agent may still be starting (the
	// first pause/unpause used to fail "is not paused", "already paused").
	waitState := func(b *testing.B, paused bool) {
		for deadline := time.Now().Add(30 * time.Second); ; {
			res, err := cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if st := res.Container.State; st.Running && !st.Restarting && st.Paused == paused {
				return
			}
			if time.Now().After(deadline) {
				b.Fatalf("container state %+v, want running and paused=%v", res.Container.State, paused)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitRunning := func(b *testing.B) { waitState(b, false) }
	start := func(b *testing.B) {
		must(b)(cli.ContainerStart(ctx, id, client.ContainerStartOptions{}))
		waitRunning(b)
	}
	reconnect := func(b *testing.B) {
		must(b)(cli.NetworkConnect(ctx, net, client.NetworkConnectOptions{Container: id, EndpointConfig: &network.EndpointSettings{Aliases: []string{"worker-1"}}}))
	}
	unpause := func(b *testing.B) {
		waitState(b, true)
		must(b)(cli.ContainerUnpause(ctx, id, client.ContainerUnpauseOptions{}))
		waitRunning(b)
	}

	var lift fault.Lift // of partition/runtime
	for _, bc := range []struct {
		name   string
		inject func(b *testing.B)
		undo   func(b *testing.B)
	}{
		{"pause/api", func(b *testing.B) { must(b)(cli.ContainerPause(ctx, id, client.ContainerPauseOptions{})) }, unpause},
		{"pause/cli", func(b *testing.B) { run(b, "pause", id) }, unpause},
		{"pause/runtime", func(b *testing.B) { must(b)(rt.PauseAgent(ctx, "worker-1")) }, unpause},
		{"kill/api", func(b *testing.B) { must(b)(cli.ContainerKill(ctx, id, client.ContainerKillOptions{Signal: "KILL"})) }, start},
		{"kill/cli", func(b *testing.B) { run(b, "kill", id) }, start},
		// The restart policy resurrects the agent; stop and start it
		// instead of waiting, which also resets Docker's restart backoff.
		{"kill/runtime", func(b *testing.B) { must(b)(nil, rt.StopAgent(ctx, "worker-1")) }, func(b *testing.B) {
			zero := 0
			must(b)(cli.ContainerStop(ctx, id, client.ContainerStopOptions{Timeout: &zero}))
			start(b)
		}},
		{"partition/api", func(b *testing.B) {
			must(b)(cli.NetworkDisconnect(ctx, net, client.NetworkDisconnectOptions{Container: id}))
		}, reconnect},
		{"partition/cli", func(b *testing.B) { run(b, "network", "disconnect", net, id) }, reconnect},
		{"partition/runtime", func(b *testing.B) {
			var err error
			lift, err = rt.PartitionNetwork(ctx, "worker-1")
			must(b)(nil, err)
		}, func(b *testing.B) { must(b)(nil, lift(ctx)) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.StopTimer()
			waitRunning(b)
			b.StartTimer()
			for i := 0; i < b.N; i++ {
				bc.inject(b)
				b.StopTimer()
				bc.undo(b)
				b.StartTimer()
			}
		})
	}
}
