// Package kube runs arena's scenarios, gates and survival runs against
// agents that are Kubernetes pods, with nothing installed in the cluster but
// the system under test. It is a module of its own
// (github.com/ares-arena/arena/kube), so that users of the core do not
// download client-go.
//
// # Quick start
//
//	func TestLeaderFailover(t *testing.T) {
//		rt := kube.ForTest(t, kube.WithReferenceAgents(3)) // a kubetest plane; skips without it
//		rep := arenatest.Run(t, "leader-failover", arenatest.WithRuntime(rt))
//		require.True(t, rep.Score.Grade.AtLeast(engine.GradeA))
//	}
//
// Against a cluster of yours, from a kubeconfig:
//
//	cfg, _ := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
//	rt, err := kube.NewRuntime(ctx, cfg, kube.WithNamespace("shop"), kube.WithSelector("app=agents"),
//		kube.WithLeaderLease("agents-leader"))
//	defer rt.Close(context.Background())
//	rep := arenatest.Run(t, "leader-failover", arenatest.WithRuntime(rt))
//
// # Agents
//
// The agents are the pods of one namespace (WithNamespace) that match a
// label selector (WithSelector) and carry the type label (WithTypeLabel,
// default arena.io/type; its value is the agent's type). An agent's ID is
// its pod's name: StatefulSet pods keep theirs through a kill, a
// ReplicaSet's replacement is a new agent. With WithLeaderLease the holder
// of that coordination.k8s.io Lease is listed as the leader, live, so that
// kill_leader follows the elections. Listing reads an informer's cache: it
// makes no API request.
//
// # Faults
//
//	fault              how it lands                                  lifted by its Lift
//	kill_*             delete the pod, grace period 0: its           never: its controller
//	                   controller resurrects it                      resurrects it
//	network_partition  a deny-all NetworkPolicy selecting the pod    the policy deleted, the pod
//	                   (label arena.io/partition)                    unlabelled (also after
//	                                                                 WithPartitionHealing, 3s)
//	slow_agent         the pod's CPU limits scaled by                the limits it had before
//	                   ref/(ref+delay), in place (pods/resize)
//	pause_agent        POST /faults {"kind":"pause"} to the agent    DELETE /faults/pause
//	                   (agentapi): it stops working and answering    (ResumeAgent too)
//	resume_agent       DELETE /faults/pause to a pause this runtime  -
//	                   landed
//	tool_timeout,      POST /faults to the agent, through the        DELETE /faults/{kind}
//	mcp_disconnect,    API server's pod proxy
//	llm_failure
//	memory_corrupt     POST /faults (the agent heals from its        never
//	                   checkpoint)
//	remove_node,       POST /faults to the node, or to the edge's    never: the agent repairs
//	remove_edge        source (DAGProvider)                          its DAG
//	clock_jump         POST /faults: the agent's clock runs offset   DELETE /faults/clock_jump
//	                   ahead
//
// The agent-level faults, pause and the DAG faults reach the agent's
// fault-control endpoint (package agentapi, port WithControlPort, 8080)
// through the API server's pod proxy,
// /api/v1/namespaces/{ns}/pods/{pod}:{port}/proxy/...: Kubernetes cannot
// freeze a pod, so pause is a kind of the contract that the agent lands
// itself. An agent that answers 404 or 501 does not support the kind: the
// fault fails with fault.ErrUnsupported naming the pod and the kind, and
// is never counted as landed. Nothing lands on a paused agent but its
// resume; its other lifts wait for it. With WithoutAgentAPI these faults
// fail with fault.ErrUnsupported.
//
// What landed means: a kill, that the API server deleted the pod; a
// slowdown, that it accepted the resize (the kubelet applies it); a
// partition, that the policy exists where something enforces it; an
// agent-level fault, that the agent answered 200. The API cannot tell
// whether the cluster's CNI enforces NetworkPolicy; on a kwok node
// (annotation kwok.x-k8s.io/node) nothing does, so there a partition fails
// with ErrNotEnforced and creates nothing, unless
// WithEnforcement(EnforcementAssumed).
//
// The network degradation faults (network_latency, network_bandwidth,
// connection_reset) are refused (Refusals): Kubernetes has no API for them.
// The other errors of fault injection are arena's: fault.ErrNoAgent for an
// unknown pod, fault.ErrCannotLand when the pod's state rules the fault
// out. The calls to the agents go through agentapi.Client, which the
// containers runtime uses too, so an agent's answer means the same on both;
// ToolTimeout, DisconnectMCP, InjectLLMFailure, CorruptMemory and JumpClock
// are agentfault.Faults', shared with it as well.
//
// # Probe and checks
//
// Probe reads readiness from the cache and asks each Ready pod's agent GET
// /health through the pod proxy (within WithProbeTimeout): healthy when
// every owner (StatefulSet, ReplicaSet, bare pod) has as many available
// pods as at the start (a quorum, for the owners of workers), no agent
// reports a broken DAG, and the leader Lease's holder is available. An
// agent answering 404 has no /health: readiness decides. Checks are the
// tasks and memory checks of package containers/agentcheck over each
// agent's GET /state, read through the proxy; not applicable where the
// agents answer 404.
//
// # Reference agents
//
// WithReferenceAgents creates StatefulSets of ReferenceImage (agentd),
// leader-0 → orchestrator-0 → worker-1 … worker-N, and the headless Service
// arena-agents: in a cluster with DNS an agent reaches a route as
// http://<pod>.arena-agents:8080 (AGENTD_ROUTE_URLS). A kubetest plane with
// WithAgentd runs each such pod as an agentd process on the pod's IP,
// reaching routes through its gateway.
//
// # Cleanup
//
// Everything the runtime creates carries the labels arena.io/project
// (WithProject) and arena.io/run (one per Runtime). Close lifts the faults
// still active and deletes what it created; ForTest also deletes the
// test's namespace. Sweep removes what a killed process left, by project;
// Leftovers lists it.
//
// # Tests
//
// Package kubetest starts a control plane on loopback (etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and kwok, built from source by
// `make kube-tools`), and runs the reference pods as agentd processes;
// ForTest starts one per test unless WithConfig names a cluster.
package kube
