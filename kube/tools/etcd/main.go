// Command etcd is etcd's server, built from go.etcd.io/etcd/server/v3 for
// the kubetest control plane (a module of its own: etcd's dependencies
// clash with Kubernetes').
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
