package containers_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
)

// TestLeaderFailoverInDocker is the README's example of a test against real
// containers (section "Real containers"), with this package's project label
// added so that TestMain's sweep covers it: keep the two in step. The
// built-in leader-failover scenario, unchanged, must pass its own gate
// against five containers in real time.
//
// It is not parallel, as in the README: its gate (max_mttr 2s) is a bound
// on Docker's restart of the killed leader, which the package's parallel
// tests (conformance, survival, image builds: a dozen clusters on two
// cores) stretched to 2.6s in CI. Go runs the sequential tests first, alone.
func TestLeaderFailoverInDocker(t *testing.T) {
	rt := containers.ForTest(t, containers.WithProject(testProject), containers.WithReferenceAgents(3)) // skips without a Docker daemon
	rep := arenatest.Run(t, "leader-failover", arenatest.WithRuntime(rt))
	require.True(t, rep.Score.Grade.AtLeast(engine.GradeA))
	t.Logf("%s", rep)
}

// TestLinkInDocker is the README's example of a link (section "Real
// containers"), run, with this package's project label added: keep the two
// in step. Two agents of your own, api and db, api reaching db
// through the proxy WithLink puts between them; a network_latency on db
// with peer api, executed by the service, adds its latency to that link
// (timed inside api), and the service lifts it at its duration. Both
// agents are testdata/linkprobe, which serves /health and times round
// trips through its links.
func TestLinkInDocker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	image := linkProbe(t)
	api := testcontainers.ContainerRequest{FromDockerfile: image, ExposedPorts: []string{"8080/tcp"}}
	db := testcontainers.ContainerRequest{FromDockerfile: image, ExposedPorts: []string{"8080/tcp"}}
	rt := containers.ForTest(t, containers.WithProject(testProject), // skips without a Docker daemon
		containers.WithAgent("api", fault.TypeOrchestrator, api),
		containers.WithAgent("db", fault.TypeWorker, db),
		// The api container dials $ARENA_LINK_DB_URL (or _HOST and _PORT).
		containers.WithLink("api", "db", containers.LinkPort("8080/tcp")))
	p, err := containers.NewProxied(rt)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	svc := engine.NewService(fault.NewInjectorFor(p, fault.WithDAG(p)), nil, nil, engine.WithProbe(p.Probe))

	before := probeRTT(t, rt, "api", "db")
	res := svc.Execute(ctx, fault.Action{Type: fault.NetworkLatency, TargetID: "db",
		Metadata: map[string]any{"latency": "200ms", "peer": "api", "duration": "3s"}})
	if !res.Success {
		t.Fatalf("network_latency on db, peer api: %s", res.Error)
	}
	during := probeRTT(t, rt, "api", "db")
	t.Logf("api → db, timed in api: %s before, %s under network_latency 200ms on db peer api", before, during)
	if added := during - before; added < 180*time.Millisecond || added > 220*time.Millisecond {
		t.Errorf("api → db: added %s, want 200ms ± 20ms", added)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(svc.ActiveFaults()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the latency is still active 30s after its 3s duration: %+v", svc.ActiveFaults())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := probeRTT(t, rt, "api", "db"); d > before+100*time.Millisecond {
		t.Errorf("api → db after the lift: %s, want back near %s", d, before)
	}
}
