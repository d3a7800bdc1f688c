package etcdcluster

import (
	"context"
	"strings"
	"sync"

	"github.com/testcontainers/testcontainers-go"

	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/fault"
)

// Members are the cluster's member names, which are also their agent IDs
// and host names on the agents' network.
var Members = []string{"e1", "e2", "e3"}

// ClientPort is a member's client port: the v3 JSON gateway, and /health.
const ClientPort = "2379/tcp"

// Options returns the containers options for the cluster: one agent per
// member (started together: a member is healthy only once it has a
// leader), probed on /health with a quorum probe, the Raft leader resolved
// live (Leader). A member's data is in its container, which a kill
// restarts.
func Options(image string, endpoint func(id string) string) []containers.Option {
	peers := make([]string, len(Members))
	for i, m := range Members {
		peers[i] = m + "=http://" + m + ":2380"
	}
	opts := []containers.Option{containers.WithQuorumProbe(), containers.WithRoles(LeaderRoles(endpoint))}
	for _, m := range Members {
		req := testcontainers.ContainerRequest{
			Image: image,
			Cmd: []string{"--name", m, "--data-dir", "/data",
				"--listen-client-urls", "http://0.0.0.0:2379", "--advertise-client-urls", "http://" + m + ":2379",
				"--listen-peer-urls", "http://0.0.0.0:2380", "--initial-advertise-peer-urls", "http://" + m + ":2380",
				"--initial-cluster", strings.Join(peers, ","), "--initial-cluster-state", "new", "--initial-cluster-token", "arena"},
			ExposedPorts: []string{ClientPort},
		}
		opts = append(opts, containers.WithAgent(m, fault.TypeWorker, req,
			containers.AgentControlPort(ClientPort), containers.AgentHealthPath("/health")))
	}
	return opts
}

// LeaderRoles returns a role resolver asking each member whom it follows
// (POST /v3/maintenance/status): the member that is its own leader is the
// leader, every other one a worker. endpoint maps an agent ID to its client
// base URL.
func LeaderRoles(endpoint func(id string) string) fault.RoleResolver {
	return func(ctx context.Context, agents []fault.AgentInfo) ([]fault.AgentInfo, error) {
		leads := make([]bool, len(agents))
		var wg sync.WaitGroup
		for i, a := range agents {
			wg.Go(func() {
				var st struct {
					Header struct {
						MemberID string `json:"member_id"`
					} `json:"header"`
					Leader string `json:"leader"`
				}
				if post(ctx, endpoint(a.ID)+"/v3/maintenance/status", struct{}{}, &st) == nil && st.Leader != "" && st.Leader == st.Header.MemberID {
					leads[i] = true
				}
			})
		}
		wg.Wait()
		out := make([]fault.AgentInfo, len(agents))
		for i, a := range agents {
			a.Type = fault.TypeWorker
			if leads[i] {
				a.Type = fault.TypeLeader
			}
			out[i] = a
		}
		return out, nil
	}
}
