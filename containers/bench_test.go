package containers_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/ares-arena/arena/containers"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
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
	waitRunning := func(b *testing.B) {
		for {
			res, err := cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if res.Container.State.Running && !res.Container.State.Restarting {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	start := func(b *testing.B) {
		must(b)(cli.ContainerStart(ctx, id, client.ContainerStartOptions{}))
		waitRunning(b)
	}
	reconnect := func(b *testing.B) {
		must(b)(cli.NetworkConnect(ctx, net, client.NetworkConnectOptions{Container: id, EndpointConfig: &network.EndpointSettings{Aliases: []string{"worker-1"}}}))
	}
	unpause := func(b *testing.B) { must(b)(cli.ContainerUnpause(ctx, id, client.ContainerUnpauseOptions{})) }

	for _, bc := range []struct {
		name   string
		inject func(b *testing.B)
		undo   func(b *testing.B)
	}{
		{"pause/api", func(b *testing.B) { must(b)(cli.ContainerPause(ctx, id, client.ContainerPauseOptions{})) }, unpause},
		{"pause/cli", func(b *testing.B) { run(b, "pause", id) }, unpause},
		{"pause/runtime", func(b *testing.B) { must(b)(nil, rt.PauseAgent(ctx, "worker-1")) }, unpause},
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
		{"partition/runtime", func(b *testing.B) { must(b)(nil, rt.PartitionNetwork(ctx, "worker-1")) }, func(b *testing.B) {
			must(b)(nil, rt.LiftFault(ctx, "network_partition", "worker-1"))
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				bc.inject(b)
				b.StopTimer()
				bc.undo(b)
				b.StartTimer()
			}
		})
	}
}
