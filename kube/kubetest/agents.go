package kubetest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Pods on kwok nodes execute nothing. With WithAgentd (or WithAgentImage)
// the plane runs, for each pod of a chosen image, one process on this host:
// a minimal kubelet for that image.
//
//   - The pod CIDR is made local to the host (`ip route add local <cidr>
//     dev lo`, which needs root or CAP_NET_ADMIN; Close deletes the route),
//     so the process listens on its pod's IP and the API server's pod proxy
//     (/api/v1/namespaces/{ns}/pods/{pod}:{port}/proxy/...) reaches it. The
//     proxy refuses loopback (127/8) addresses, hence a range of its own,
//     one of 10.200-249.0.0/16 that overlaps none of the host's networks
//     and routes. A test binary killed before Close leaves its route
//     behind; the next plane on the host deletes it (each route's owner PID
//     is noted in $TMPDIR/arena-kubetest-routes).
//   - The process gets the container's args and env (value, or fieldRef of
//     metadata.name, metadata.namespace, status.podIP), AGENTD_ID=<pod
//     name> and AGENTD_ADDR=<pod IP>:<first container port, else 8080>.
//   - There is no cluster DNS: a gateway on loopback forwards
//     /pods/<namespace>/<pod>/<path> to the pod's current IP, and each
//     agentd process reaches its routes (AGENTD_ROUTES) through it
//     (AGENTD_ROUTE_URLS, replacing the pod's own).
//   - AGENTD_DATA, when the container sets it, is a directory per pod name
//     under Dir that outlives the pod, as a StatefulSet's volume claim does.
//   - A pod deleted, or the plane closed, SIGKILLs its process.

// AgentdImage is the image whose pods WithAgentd runs as agentd processes.
const AgentdImage = "arena-agentd:local"

// agentdPackage is what WithAgentd compiles.
const agentdPackage = "github.com/ares-arena/arena/cmd/agentd"

// ErrNoPodNetwork is (wrapped) Plane.AgentsErr when the pod CIDR could not
// be made local to this host: pods are not run as processes.
var ErrNoPodNetwork = errors.New("kubetest: cannot route the pod CIDR to this host (needs root or CAP_NET_ADMIN)")

// WithAgentd runs an agentd process for every pod whose container image is
// AgentdImage; agentd is compiled (`go build`, the go command on PATH) when
// the plane starts.
func WithAgentd() Option { return func(o *options) { o.agentd = true } }

// WithAgentImage runs binary for every pod whose container image is image.
func WithAgentImage(image, binary string) Option {
	return func(o *options) {
		if o.images == nil {
			o.images = map[string]string{}
		}
		o.images[image] = binary
	}
}

// runsAgents says whether the plane runs pods as processes.
func (o *options) runsAgents() bool { return o.agentd || len(o.images) > 0 }

// buildAgentd compiles agentd into dir.
func buildAgentd(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "agentd")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, agentdPackage)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("kubetest: go build %s: %v\n%s", agentdPackage, err, out)
	}
	return bin, nil
}

// runner runs the pods of its images as processes.
type runner struct {
	dir     string
	images  map[string]string
	factory informers.SharedInformerFactory
	stop    chan struct{}
	gw      *http.Server
	gwURL   string
	gwDone  chan struct{}
	tr      *http.Transport

	mu     sync.Mutex
	closed bool
	procs  map[types.UID]*agentProc
	addrs  map[string]string // namespace/pod → ip:port of its current incarnation
}

type agentProc struct {
	pod  string // namespace/name
	cmd  *exec.Cmd
	done chan struct{}
}

// startRunner starts the gateway and the pod watch.
func (p *Plane) startRunner(ctx context.Context, cs kubernetes.Interface) error {
	images := map[string]string{}
	for img, bin := range p.opts.images {
		images[img] = bin
	}
	if p.opts.agentd {
		if _, ok := images[AgentdImage]; !ok {
			bin, err := buildAgentd(ctx, p.Dir)
			if err != nil {
				return err
			}
			images[AgentdImage] = bin
		}
	}
	dir := filepath.Join(p.Dir, "pods")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	r := &runner{
		dir: dir, images: images, stop: make(chan struct{}), gwDone: make(chan struct{}),
		tr:    &http.Transport{MaxIdleConnsPerHost: 4},
		procs: map[types.UID]*agentProc{}, addrs: map[string]string{},
		gwURL: "http://" + l.Addr().String(),
	}
	r.gw = &http.Server{Handler: http.HandlerFunc(r.forward), ReadHeaderTimeout: 5 * time.Second}
	go func() { defer close(r.gwDone); _ = r.gw.Serve(l) }()
	p.runner = r
	r.factory = informers.NewSharedInformerFactory(cs, 0)
	inf := r.factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { r.sync(obj) },
		UpdateFunc: func(_, obj any) { r.sync(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if pod, ok := obj.(*corev1.Pod); ok {
				r.end(pod)
			}
		},
	}); err != nil {
		return err
	}
	r.factory.Start(r.stop)
	for typ, ok := range r.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("kubetest: cache of %v not synced: %w", typ, ctx.Err())
		}
	}
	return nil
}

// GatewayURL is the base URL through which the plane's agents reach a pod:
// GatewayURL()/pods/<namespace>/<pod>/<path>. Empty when the plane runs no
// agents.
func (p *Plane) GatewayURL() string {
	if p.runner == nil {
		return ""
	}
	return p.runner.gwURL
}

// PodCIDR is the range the pods' IPs come from.
func (p *Plane) PodCIDR() string { return p.opts.podCIDR }

// AgentPIDs lists the process IDs of the agents running now, by pod
// "namespace/name".
func (p *Plane) AgentPIDs() map[string]int {
	out := map[string]int{}
	if p.runner == nil {
		return out
	}
	r := p.runner
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, pr := range r.procs {
		select {
		case <-pr.done:
			continue
		default:
		}
		out[pr.pod] = pr.cmd.Process.Pid
	}
	return out
}

// sync starts the pod's process when it is due one and has none.
func (r *runner) sync(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	if pod.DeletionTimestamp != nil || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		r.end(pod)
		return
	}
	if pod.Spec.NodeName == "" || pod.Status.PodIP == "" {
		return
	}
	var ctr *corev1.Container
	var bin string
	for i, c := range pod.Spec.Containers {
		if b, ok := r.images[c.Image]; ok {
			ctr, bin = &pod.Spec.Containers[i], b
			break
		}
	}
	if ctr == nil {
		return
	}
	port := 8080
	if len(ctr.Ports) > 0 {
		port = int(ctr.Ports[0].ContainerPort)
	}
	key := pod.Namespace + "/" + pod.Name
	addr := net.JoinHostPort(pod.Status.PodIP, strconv.Itoa(port))
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if _, ok := r.procs[pod.UID]; ok {
		return
	}
	r.addrs[key] = addr
	env := []string{"PATH=" + os.Getenv("PATH")}
	var routes []string
	for _, e := range ctr.Env {
		v := e.Value
		if e.ValueFrom != nil {
			if e.ValueFrom.FieldRef == nil {
				continue
			}
			switch e.ValueFrom.FieldRef.FieldPath {
			case "metadata.name":
				v = pod.Name
			case "metadata.namespace":
				v = pod.Namespace
			case "status.podIP":
				v = pod.Status.PodIP
			default:
				continue
			}
		}
		switch e.Name {
		case "AGENTD_ROUTE_URLS", "AGENTD_ID", "AGENTD_ADDR":
			continue
		case "AGENTD_ROUTES":
			for rt := range strings.SplitSeq(v, ",") {
				if rt = strings.TrimSpace(rt); rt != "" {
					routes = append(routes, rt+"="+r.gwURL+"/pods/"+pod.Namespace+"/"+rt)
				}
			}
		case "AGENTD_DATA":
			v = filepath.Join(r.dir, pod.Namespace, pod.Name)
			if err := os.MkdirAll(v, 0o755); err != nil {
				continue
			}
		}
		env = append(env, e.Name+"="+v)
	}
	env = append(env, "AGENTD_ID="+pod.Name, "AGENTD_ADDR="+addr)
	if len(routes) > 0 {
		env = append(env, "AGENTD_ROUTE_URLS="+strings.Join(routes, ","))
	}
	logf, err := os.Create(filepath.Join(r.dir, pod.Namespace+"_"+pod.Name+"_"+string(pod.UID)+".log"))
	if err != nil {
		return
	}
	cmd := exec.Command(bin, ctr.Args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(logf, "kubetest: start %s: %v\n", bin, err)
		logf.Close()
		return
	}
	pr := &agentProc{pod: key, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(pr.done)
	}()
	r.procs[pod.UID] = pr
}

// end SIGKILLs the pod's process, if it has one, and waits for its end.
func (r *runner) end(pod *corev1.Pod) {
	r.mu.Lock()
	pr := r.procs[pod.UID]
	delete(r.procs, pod.UID)
	key := pod.Namespace + "/" + pod.Name
	if pod.DeletionTimestamp != nil || pr != nil {
		delete(r.addrs, key)
	}
	r.mu.Unlock()
	if pr != nil {
		_ = pr.cmd.Process.Signal(syscall.SIGKILL)
		<-pr.done
	}
}

// forward is the gateway: /pods/<namespace>/<pod>/<path> to the pod.
func (r *runner) forward(w http.ResponseWriter, req *http.Request) {
	rest, ok := strings.CutPrefix(req.URL.Path, "/pods/")
	parts := strings.SplitN(rest, "/", 3)
	if !ok || len(parts) < 2 {
		http.Error(w, "want /pods/<namespace>/<pod>/<path>", http.StatusNotFound)
		return
	}
	r.mu.Lock()
	addr, ok := r.addrs[parts[0]+"/"+parts[1]]
	r.mu.Unlock()
	if !ok {
		http.Error(w, "pod "+parts[0]+"/"+parts[1]+" is not running", http.StatusBadGateway)
		return
	}
	path := "/"
	if len(parts) == 3 {
		path += parts[2]
	}
	target := &url.URL{Scheme: "http", Host: addr}
	(&httputil.ReverseProxy{
		Transport: r.tr,
		// An agent that does not answer is the caller's business (agentd
		// skips the route a while), not the test log's.
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, err.Error(), http.StatusBadGateway)
		},
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.URL.Path = path
			pr.Out.URL.RawPath = ""
		},
	}).ServeHTTP(w, req)
}

// close stops the watch and the gateway and kills every process.
func (r *runner) close() error {
	r.mu.Lock()
	r.closed = true
	procs := r.procs
	r.procs = map[types.UID]*agentProc{}
	r.mu.Unlock()
	close(r.stop)
	r.factory.Shutdown()
	for _, pr := range procs {
		_ = pr.cmd.Process.Signal(syscall.SIGKILL)
		<-pr.done
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := r.gw.Shutdown(ctx)
	<-r.gwDone
	r.tr.CloseIdleConnections()
	return err
}
