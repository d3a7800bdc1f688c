// Package containers runs a system of agents in Docker containers, started
// with testcontainers-go, and lands arena's faults on them for real: a kill
// is a SIGKILL, a pause freezes the processes, a slowdown throttles the CPU,
// a partition takes the container off its network. A Runtime is an
// fault.RuntimeProvider and fault.DAGProvider with a Probe and Checks, so scenarios, survival runs and A/B tests score real
// containers in real time, with the same engine as the fakes.
//
// # Quick start
//
//	func TestLeaderFailover(t *testing.T) {
//		rt := containers.ForTest(t, containers.WithReferenceAgents(3)) // skips without Docker
//		rep := arenatest.Run(t, "leader-failover", arenatest.WithRuntime(rt))
//		require.True(t, rep.Score.Grade.AtLeast(engine.GradeA))
//	}
//
// Without arenatest, wire it into a service yourself:
//
//	rt, err := containers.NewRuntime(ctx, containers.WithReferenceAgents(3))
//	defer rt.Close(context.Background())
//	svc := engine.NewService(fault.NewInjector(rt, rt), events.NewMemoryStore(), nil,
//		engine.WithProbe(rt.Probe), engine.WithChecks(rt.Checks()...))
//	rep, err := scenario.Run(ctx, svc, sc)
//
// # Agents
//
// WithReferenceAgents starts the reference cluster: agentd (cmd/agentd)
// agents leader-0 → orchestrator-0 → worker-1 … worker-N, each with its
// ledger and checkpoint on a volume. Its image is built on first use
// (BuildAgentImage): cmd/agentd compiled as a static binary and put in a
// FROM scratch image, so no registry is needed. WithAgent adds agents from
// your own images; they serve the fault-control contract of package agentapi
// (at least GET /health) and may use AgentRoutes, AgentVolume and
// AgentControlPort. Every agent joins a network of the runtime's own under
// its ID as host name, gets a restart policy ("always") and fixed host ports:
// a port Docker picks changes with every restart and reconnect, a fixed one
// keeps Agent.Endpoint stable through the faults.
//
// # Faults
//
//	fault              how it lands                                  lifted by its Lift
//	kill_*             SIGKILL (see KillMode); the restart policy    never: resurrection is the
//	                   or the runtime's supervisor resurrects it     system's job
//	pause_agent        docker pause (cgroup freezer)                 docker unpause
//	resume_agent       docker unpause                                -
//	slow_agent         container update: CFS quota of                the limits it had before
//	                   ref/(ref+delay) of a CPU (SlowAgent)
//	network_partition  docker network disconnect from the agents'    network connect (also after
//	                   network; the probe cannot reach it either     WithPartitionHealing, 3s)
//	tool_timeout,      POST /faults to the agent (agentapi), or      DELETE /faults/{kind}, or the
//	mcp_disconnect,    the WithFaultHook for the kind                hook's Lift
//	llm_failure
//	memory_corrupt     POST /faults; agentd heals from its           never
//	                   checkpoint within a second
//	remove_node,       POST /faults to the node, or to the edge's    never: agentd repairs the
//	remove_edge        source                                        DAG after 1s
//	clock_jump         POST /faults: the agent's clock runs offset   DELETE /faults/clock_jump
//	                   ahead
//
// The network faults (network_latency, network_bandwidth,
// connection_reset) are Proxied's: a Runtime refuses them (Refusals), naming
// NewProxied. The agent-level faults and the DAG faults (every fault that
// goes to POST /faults) go through agentapi.Client, or through the
// WithFaultHook for their kind when there is one; an agent that answers 404
// or 501 does not implement the kind: fault.ErrUnsupported, as on every
// runtime.
//
// Docker does not apply a restart policy to a container killed through its
// API: it counts as a deliberate stop (Docker 20.10: exited, RestartCount 0).
// So by default (KillAuto) StopAgent signals the container's process from
// this host when it can see it (a local daemon, as root), which Docker takes
// for a crash: the restart policy resurrects the agent and RestartCount
// rises. Where it cannot (a remote daemon), it kills through the API and
// its supervisor starts the container again after WithRestartDelay; the
// runtime then counts those restarts in AgentInfo.Restarts.
//
// The kernel's netem is not needed: latency is not injected with tc. A
// partition cuts the container off its network, and with it off its
// published ports: from the host, as from its peers, it is unreachable.
//
// # Network faults
//
// NewProxied(rt) puts a Toxiproxy proxy (the Toxiproxy library, in this
// process) in front of each agent's control port and routes the probe
// through them; the Proxied runtime it returns also lands network_latency,
// network_bandwidth and connection_reset as toxics, lifted by removing them
// and all gone when it closes. ProxyEndpoint is an agent's address through
// its proxy, for clients of your own.
//
// Links between agents go through proxies too, which the Runtime starts
// before the agents: the reference agents reach each of their routes
// through one (agentd's -route-urls), and your agents opt in per link with
// WithLink(from, to), which puts the proxy's address in from's
// environment:
//
//	ARENA_LINK_<TO>_HOST  the proxy's IP address (the network's gateway)
//	ARENA_LINK_<TO>_PORT  its port
//	ARENA_LINK_<TO>_URL   http://<host>:<port>
//
// where <TO> is the destination's ID in upper case, other characters than
// letters and digits as "_" (LinkEnv). A link's proxy listens on the
// agents' network's gateway, an address of this host that the containers
// reach, and forwards to the destination's fixed host port (LinkPort
// chooses which of its exposed ports; default the control port), which
// stays the same through kills, restarts and partitions where the
// container's IP does not; until a fault lands, a proxy only forwards. A
// network fault with a peer lands on the links between the two agents only
// (ErrPeerNotProxied when none is proxied); without one, on every link of
// the agent and its path from this host. Only network_latency has a peer
// key: LimitLinkBandwidth and ResetLinkConnections land the other two on
// one link from Go.
// LinkEndpoint is a link's address, from this host too: a client there
// sees what the from agent sees. Links need the runtime on the daemon's
// host; elsewhere WithLink fails and the reference agents talk directly.
//
// # Probe and checks
//
// Probe asks every agent's GET /health through its mapped port within
// WithProbeTimeout (100ms): healthy when every non-worker agent is available,
// a quorum of workers is, and no agent reports a broken DAG. Checks reads
// GET /state of the agents: "tasks" (every task an agent handed on is in the
// receiver's ledger: no task lost) and "memory" (memory matches its
// checksum, the checkpoint reads back). Agents out of reach by design
// (paused, partitioned, restarting) are skipped.
//
// # Cleanup
//
// Everything the runtime creates (containers, their volumes, the network)
// carries the labels arena.project (WithProject, default "arena"),
// arena.run (one per Runtime) and arena.owner (host, PID and start time of
// the process that created it). Close removes it all and then sweeps
// whatever still carries its arena.run label. ForTest closes in t.Cleanup,
// so a failed test cleans up too, and closes 20s before the test binary's
// deadline, since a timed-out test binary panics without running cleanups.
// SweepStale removes what killed processes left behind, by project prefix:
// at once when the owner is a process of this host that has ended, else by
// age; it never touches runs still going. Test binaries of one package
// may share a daemon (two engineers, two CI jobs), so give each process a
// project of its own under the package's prefix and call SweepStale in
// TestMain. Sweep removes everything of one project; Leftovers lists it.
//
// # Requirements
//
// A Docker daemon (API 1.40 or later) and the go command on PATH, to build
// agentd. Where no registry is reachable, set TESTCONTAINERS_RYUK_DISABLED=true
// (the reaper is an image to pull; Close and Sweep do its job), and inside a
// container whose daemon publishes on loopback TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1.
// Tests that need Docker skip when no daemon answers (RequireDocker,
// ForTest), and fail instead when ARENA_REQUIRE_DOCKER=1.
//
// # Index
//
//   - Runtime: NewRuntime, ForTest, Runtime (Close, Agents, Agent, State,
//     Probe, Checks, Partitioned, Docker, RunID, Project, Network, and the
//     RuntimeProvider, DAGProvider and Refuser methods; ToolTimeout,
//     DisconnectMCP, InjectLLMFailure, CorruptMemory and JumpClock come
//     from agentfault.Faults, shared with package kube), Agent.
//   - Network faults: NewProxied, Proxied (ProxyEndpoint, Toxics,
//     ProxyToxics, LimitLinkBandwidth, ResetLinkConnections),
//     Runtime.LinkEndpoint, WithLink (LinkOption: LinkPort), LinkEnv,
//     ErrPeerNotProxied.
//   - Options: Option, WithReferenceAgents, WithAgent (AgentOption:
//     AgentRoutes, AgentVolume, AgentControlPort), WithAgentImage,
//     WithReferenceEnv, WithProject, WithLabels, WithPartitionHealing,
//     WithKillMode (KillMode: KillAuto, KillSignal, KillAPI),
//     WithRestartDelay, WithProbeTimeout, WithControlTimeout,
//     WithStartTimeout, WithSlowReference, WithFaultHook (FaultHook),
//     WithLogger.
//   - Docker: BuildAgentImage, Ping, Sweep, SweepStale, Leftovers,
//     RequireDocker, TB,
//     the Label* constants.
//   - Errors: ErrNoDocker, ErrNoEdge, ErrPeerNotProxied; and arena's
//     ErrNoAgent, ErrCannotLand, ErrUnsupported, which the runtime wraps.
//
// The fault-control contract is in package agentapi and in
// docs/fault-control.md.
package containers
