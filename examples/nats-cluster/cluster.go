// Package natscluster runs a three-node NATS server cluster with JetStream
// under arena, in Docker: a real system nobody on the arena team wrote. The
// test kills the current JetStream meta leader (found live by a role
// resolver), a random node, pauses, partitions and slows nodes, while a
// client publishes to a replicated stream and measures its own outages.
package natscluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/fault"
)

// Nodes are the cluster's server names, which are also their agent IDs and
// host names on the agents' network.
var Nodes = []string{"n1", "n2", "n3"}

// Ports of a server.
const (
	ClientPort  = "4222/tcp"
	MonitorPort = "8222/tcp"
)

// Options returns the containers options for the cluster: one agent per
// node (started concurrently, as a quorum system needs), waited for and
// probed (Runtime.Probe) on the monitoring port's /healthz with a quorum
// probe, roles resolved live from the servers (the JetStream meta leader is
// the leader).
func Options(image string, roles fault.RoleResolver) []containers.Option {
	routes := make([]string, len(Nodes))
	for i, n := range Nodes {
		routes[i] = "nats://" + n + ":6222"
	}
	opts := []containers.Option{containers.WithQuorumProbe(), containers.WithRoles(roles)}
	for _, n := range Nodes {
		req := testcontainers.ContainerRequest{
			Image: image,
			Cmd: []string{"-n", n, "-js", "-sd", "/data", "-p", "4222", "-m", "8222",
				"--cluster_name", "arena", "--cluster", "nats://0.0.0.0:6222", "--routes", strings.Join(routes, ",")},
			ExposedPorts: []string{MonitorPort, ClientPort},
		}
		opts = append(opts, containers.WithAgent(n, fault.TypeWorker, req,
			containers.AgentControlPort(MonitorPort), containers.AgentHealthPath("/healthz")))
	}
	return opts
}

var monitor = &http.Client{Timeout: 300 * time.Millisecond}

// jsz is the part of a server's GET /jsz that arena reads.
type jsz struct {
	Meta *struct {
		Leader string `json:"leader"`
	} `json:"meta_cluster"`
}

// MetaLeaderRoles returns a role resolver reading, from each server's
// monitoring endpoint, which one is the JetStream meta leader: the server
// that answers GET /jsz?leader-only=true (the others refuse). That agent is
// the leader; every other one is a worker. endpoint maps an agent ID to its
// monitoring base URL (known once the runtime has started).
func MetaLeaderRoles(endpoint func(id string) string) fault.RoleResolver {
	return func(ctx context.Context, agents []fault.AgentInfo) ([]fault.AgentInfo, error) {
		leaders := make([]bool, len(agents))
		var wg sync.WaitGroup
		for i, a := range agents {
			wg.Go(func() {
				var j jsz
				if get(ctx, endpoint(a.ID)+"/jsz?leader-only=true", &j) == nil && j.Meta != nil && j.Meta.Leader == a.ID {
					leaders[i] = true
				}
			})
		}
		wg.Wait()
		out := make([]fault.AgentInfo, len(agents))
		for i, a := range agents {
			a.Type = fault.TypeWorker
			if leaders[i] {
				a.Type = fault.TypeLeader
			}
			out[i] = a
		}
		return out, nil
	}
}

// MetaLeaderViews asks every server (GET /jsz, no leader-only) whom it
// believes the meta leader is; servers that do not answer are left out.
// This is the independent view the test checks leader kills against.
func MetaLeaderViews(ctx context.Context, endpoint func(id string) string) map[string]string {
	out := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, n := range Nodes {
		wg.Go(func() {
			var j jsz
			if get(ctx, endpoint(n)+"/jsz", &j) == nil && j.Meta != nil {
				mu.Lock()
				out[n] = j.Meta.Leader
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out
}

func get(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := monitor.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
