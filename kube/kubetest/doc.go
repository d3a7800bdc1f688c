// Package kubetest starts and stops a Kubernetes control plane on loopback
// for tests, like controller-runtime's envtest, but with nodes: etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler built from
// source, and kwok simulating the nodes and the lifecycle of the pods
// scheduled on them (nothing executes: a pod on a kwok node becomes Running
// and Ready without a container).
//
// With WithAgentd (or WithAgentImage) the plane runs each pod of the
// reference agent's image as an agentd process on the host, listening on
// the pod's IP: the pod CIDR is routed to the host (root or CAP_NET_ADMIN;
// AgentsErr says why not), the API server's pod proxy reaches the process,
// a gateway stands in for cluster DNS between agents, and deleting the pod
// SIGKILLs its process (see agents.go).
//
// The binaries are built by `make kube-tools` (kube/tools/build.sh) into a
// directory outside the clone: $ARENA_KUBE_TOOLS, or
// $HOME/.cache/arena-kube-tools/<ToolsKey>. Without them New skips the test,
// or fails it when ARENA_REQUIRE_KUBE=1 (as CI sets it).
//
//	plane := kubetest.New(t, kubetest.WithNodes(3))
//	cs := kubernetes.NewForConfigOrDie(plane.Config)
//
// The API server authorises with RBAC; Config authenticates with a client
// certificate in system:masters, and ServiceAccountConfig gives a client
// of a service account for tests of what a restricted identity may do.
// Everything runs on 127.0.0.1 on free ports, with its data and logs in a
// temporary directory that Close removes.
package kubetest
