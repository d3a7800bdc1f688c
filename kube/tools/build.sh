#!/usr/bin/env bash
# Builds the kubetest control plane from source through the Go module proxy:
# kube-apiserver, kube-controller-manager and kube-scheduler from
# k8s.io/kubernetes (this module), etcd (./etcd) and kwok with its stages
# (./kwok). CGO_ENABLED=0, static. The binaries go to a directory outside the
# clone, ${ARENA_KUBE_TOOLS:-$HOME/.cache/arena-kube-tools/<key>}, whose key
# names the versions in these go.mod files; a binary already there is not
# built again. Prints the directory on its last line.
set -euo pipefail
cd "$(dirname "$0")"
GO=${GO:-go}
ver() { (cd "$1" && "$GO" list -m -f '{{.Version}}' "$2"); }
key="k8s-$(ver . k8s.io/kubernetes)_etcd-$(ver etcd go.etcd.io/etcd/server/v3)_kwok-$(ver kwok sigs.k8s.io/kwok)_$("$GO" env GOOS)-$("$GO" env GOARCH)"
dir=${ARENA_KUBE_TOOLS:-$HOME/.cache/arena-kube-tools/$key}
mkdir -p "$dir"

build() { # build <module dir> <output name> <package>
  if [ -x "$dir/$2" ]; then echo "have $dir/$2"; return; fi
  local start=$SECONDS
  (cd "$1" && CGO_ENABLED=0 "$GO" build -trimpath -buildvcs=false -ldflags='-s -w' -o "$dir/$2.tmp" "$3")
  mv "$dir/$2.tmp" "$dir/$2"
  echo "built $dir/$2 in $((SECONDS - start))s"
}
build . kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
build . kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager
build . kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler
build etcd etcd .
build kwok kwok sigs.k8s.io/kwok/cmd/kwok

# kwok simulates nothing without stages: node-initialize,
# node-heartbeat-with-lease, pod-ready, pod-complete and pod-delete, from the
# module's kustomize/stage, in one multi-document file (written every time:
# it is cheap, and follows this script). One change to pod-ready: the
# containers' statuses report their resources, as a kubelet that supports
# in-place resize does; without them the API server refuses pods/resize
# ("Pod running on node without support for resize").
src=$(cd kwok && "$GO" list -m -f '{{.Dir}}' sigs.k8s.io/kwok)/kustomize/stage
for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
         pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
  echo "---"
  if [ "$f" = pod/fast/pod-ready.yaml ]; then
    awk '{ print } /^        restartCount: 0$/ && !done { print "        {{ with .resources }}"; print "        resources:"; print "      {{ YAML . 2 }}"; print "        {{ end }}"; done = 1 }' "$src/$f"
  else
    cat "$src/$f"
  fi
done > "$dir/kwok-stages.yaml.tmp"
grep -q 'resources:' "$dir/kwok-stages.yaml.tmp" || { echo "build.sh: pod-ready stage not patched" >&2; exit 1; }
mv "$dir/kwok-stages.yaml.tmp" "$dir/kwok-stages.yaml"
echo "$dir"
