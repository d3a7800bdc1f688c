package containers_test

import (
	"context"
	"fmt"
	"log"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/containers"
	"github.com/testcontainers/testcontainers-go"
)

// Your agents reach each other through a link's proxy when they ask for it,
// so that a network fault with a peer slows that link alone. (Compiled, not
// run: it needs your images.)
func ExampleWithLink() {
	ctx := context.Background()
	api := testcontainers.ContainerRequest{Image: "my-api:dev", ExposedPorts: []string{"8080/tcp"}}
	db := testcontainers.ContainerRequest{Image: "my-db:dev", ExposedPorts: []string{"8080/tcp", "5432/tcp"}}
	rt, err := containers.NewRuntime(ctx,
		containers.WithAgent("api", arena.TypeOrchestrator, api),
		containers.WithAgent("db", arena.TypeWorker, db),
		// The api container dials $ARENA_LINK_DB_HOST:$ARENA_LINK_DB_PORT.
		containers.WithLink("api", "db", containers.LinkPort("5432/tcp")))
	if err != nil {
		log.Fatal(err)
	}
	p, err := containers.NewProxied(rt)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(context.Background())
	svc := arena.NewService(arena.NewInjectorFor(p, arena.WithDAG(p)), nil, nil, arena.WithProbe(p.Probe))
	res := svc.Execute(ctx, arena.Action{Type: arena.ActionNetworkLatency, TargetID: "db",
		Metadata: map[string]any{"latency": "200ms", "peer": "api", "duration": "30s"}})
	fmt.Println(res.Success)
}
