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
//		require.True(t, rep.Score.Grade.AtLeast(arena.GradeA))
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
//	fault              how it lands                                  lifted by LiftFault
//	kill_*             delete the pod, grace period 0: its           never: its controller
//	                   controller resurrects it                      resurrects it
//	network_partition  a deny-all NetworkPolicy selecting the pod    the policy deleted, the pod
//	                   (label arena.io/partition)                    unlabelled (also after
//	                                                                 WithPartitionHealing, 3s)
//	slow_agent         the pod's CPU limits scaled by                the limits it had before
//	                   ref/(ref+delay), in place (pods/resize)
//
// What landed means: a kill, that the API server deleted the pod; a
// slowdown, that it accepted the resize (the kubelet applies it); a
// partition, that the policy exists where something enforces it. The API
// cannot tell whether the cluster's CNI enforces NetworkPolicy; on a kwok
// node (annotation kwok.x-k8s.io/node) nothing does, so there a partition
// fails with ErrNotEnforced and creates nothing, unless
// WithEnforcement(EnforcementAssumed). Kubernetes cannot pause a pod, and
// the agent-level faults (tool_timeout, mcp_disconnect, llm_failure,
// memory_corrupt) and the DAG faults are not implemented: the runtime has
// no Pauser nor their capabilities, so a scenario with them fails
// validation naming the step (arena.ErrUnsupported).
//
// # Probe
//
// Probe reads the cache: healthy when every owner (StatefulSet,
// ReplicaSet, bare pod) has as many Ready pods as at the start and the
// leader Lease's holder is a Ready pod.
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
// `make kube-tools`); ForTest starts one per test unless WithConfig names a
// cluster.
package kube
