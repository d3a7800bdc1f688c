// Package sim is a simulated world for a Go system's own code: named nodes
// on an in-memory network, meant to run inside a testing/synctest bubble
// (arenatest.Simulate opens one), where time is simulated, and working in
// real time outside one.
//
//	w := sim.New(sim.WithSeed(7))
//	n, _ := w.AddNode("raft-1", sim.NodeConfig{Start: start, Stop: stop, RestartAfter: 2 * time.Second})
//	l, _ := n.Listen(":7000")                              // a net.Listener
//	c, _ := w.Node("client").DialContext(ctx, "tcp", "raft-1:7000") // a net.Conn
//
// # What runs where
//
// Everything of the system runs as its own code, unmodified, on its own
// goroutines and timers: raft's elections, net/http's server and
// transport, gRPC, a client's retries. What sim provides is the network
// between them and the nodes' lifecycle:
//
//   - Listeners, dialers and conns are in memory: bytes move through
//     buffers in the process, never a socket. Every blocking call (Accept,
//     Read, Write, a dial under latency) waits on channels and timers,
//     which a synctest bubble counts as durably blocked, so the bubble's
//     clock jumps past it: a simulated day takes minutes. Deadlines
//     (SetDeadline…), Close (net.ErrClosed), EOF, EPIPE and ECONNRESET
//     behave as on TCP (the conns pass golang.org/x/net/nettest's suite).
//   - In a bubble the world must be made inside it (its channels and
//     timers then belong to it; arenatest.Simulate does so). Outside a
//     bubble the same code runs in real time.
//   - A real socket, a file or a system call inside the bubble is not
//     durable: time stops while it blocks (arenatest.Simulate's watchdog
//     names it).
//
// # Carrying unchanged libraries
//
//   - net/http: http.Server.Serve(l) on a node's listener; Node.HTTPTransport
//     or Node.HTTPClient for the clients (a URL's host is a node's name).
//   - gRPC: grpc.NewServer().Serve(l); grpc.WithContextDialer(n.ContextDialer()).
//   - hashicorp/raft: raft.NewNetworkTransport over a StreamLayer made of
//     the node's listener and Node.DialTimeout (six lines; examples/raft-sim).
//   - A transport of your own that does not use conns: World.Wait(ctx,
//     from, to, bytes) is what the link's faults make a message of that size
//     wait (or fail).
//
// # Nodes and faults
//
// A node's NodeConfig has the user's Start and Stop hooks: a kill cuts its
// conns and listeners (its peers see ECONNRESET), calls Stop, and the
// world's supervisor calls Start again after RestartAfter (negative:
// never). What survives a crash (a raft log, a snapshot store) is the
// user's to keep between Start calls, as a disk would. Each node has a
// seeded source (Node.Rand), a function of the world's seed and its name.
//
// The World is an arena runtime: ListAgents (with SetRoles, a resolver of
// the system's live roles, so kill_leader follows its elections),
// StopAgent (kill), PauseAgent and ResumeAgent (the node's links hold
// every byte until the resume), PartitionNetwork (conns reset, dials
// refused, until the lift), InjectLatency (with jitter, direction and
// peer), LimitBandwidth and ResetConnections; landing a fault arena can
// lift hands back its fault.Lift, and Refusals says why the world refuses
// the built-in types it does not land. How the faults of a link's two ends combine is arena's one set of
// network rules (internal/netrules, shared with the fakes and netfault).
// slow_agent and the agent-level faults (tools, MCP, LLM, memory) are not
// landed: in-process code cannot be slowed from outside.
//
// # Index
//
//   - The world: New, Option, WithSeed, World, World.Close, ErrClosed.
//   - Nodes: NodeConfig, World.AddNode, Node, Node.Kill, Node.Rand,
//     NodeLabel, ErrNodeDown, NoNodeError.
//   - Network: Addr, Node.Listen, World.Listen, Node.DialContext,
//     Node.DialTimeout, Node.ContextDialer, Node.HTTPTransport,
//     Node.HTTPClient, World.Wait, WaitError.
//   - Runtime: World.ListAgents, World.SetRoles, World.StopAgent,
//     World.PauseAgent, World.ResumeAgent, World.PartitionNetwork,
//     World.InjectLatency, World.LimitBandwidth, World.ResetConnections,
//     World.Refusals.
package sim
