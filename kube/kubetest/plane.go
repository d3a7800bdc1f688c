package kubetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/retry"
)

const (
	// serviceCIDR is the Services' range; serviceIP, its first address, is
	// the kubernetes Service's (in the serving certificate).
	serviceCIDR = "10.96.0.0/16"
	serviceIP   = "10.96.0.1"

	// NodeLabel marks the plane's simulated nodes (value "true"): kwok
	// manages the nodes that carry it, and only those.
	NodeLabel = "kubetest.arena.io/kwok"

	// NotReadyTaint is the taint the API server puts on a new node; New
	// removes it once kwok reports the node Ready.
	NotReadyTaint = "node.kubernetes.io/not-ready"
)

// Option configures Start and New.
type Option func(*options)

type options struct {
	nodes    int
	toolsDir string
	podCIDR  string
	// podCIDRSet: WithPodCIDR chose the range (else WithAgentd picks one).
	podCIDRSet bool
	startup    time.Duration
	agentd     bool
	images     map[string]string // image → binary (WithAgentImage)
}

// WithNodes sets how many simulated nodes the plane has (default 3).
func WithNodes(n int) Option { return func(o *options) { o.nodes = n } }

// WithToolsDir sets the directory of the binaries (default ToolsDir()).
func WithToolsDir(dir string) Option { return func(o *options) { o.toolsDir = dir } }

// WithPodCIDR sets the range kwok gives the pods their IPs from (default
// 10.0.0.0/16; with WithAgentd, a free 10.2xx.0.0/16).
func WithPodCIDR(cidr string) Option {
	return func(o *options) { o.podCIDR, o.podCIDRSet = cidr, true }
}

// WithStartupTimeout bounds how long Start waits for the plane to answer
// and the nodes to be Ready (default 3 minutes: a cold API server on two
// busy cores takes a while).
func WithStartupTimeout(d time.Duration) Option { return func(o *options) { o.startup = d } }

// Plane is a running control plane.
type Plane struct {
	// Config reaches the API server as an administrator (system:masters).
	Config *rest.Config
	// Nodes are the simulated nodes' names, Ready and untainted.
	Nodes []string
	// Dir holds the plane's certificates, etcd's data and each process's
	// log (<name>.log), and the agents' logs and data (pods/); Close
	// removes it.
	Dir string
	// AgentsErr says why the plane does not run the pods of WithAgentd or
	// WithAgentImage as processes (wrapping ErrNoPodNetwork); nil when it
	// does, or was not asked to.
	AgentsErr error

	opts   options
	route  string // the pod CIDR routed to this host, deleted by Close
	runner *runner
	pki    *pki
	procs  []*proc
	once   sync.Once
	err    error
}

type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// Start starts etcd, the API server, the controller manager, the scheduler
// and kwok, creates the nodes and returns once they are Ready and
// schedulable. A missing binary is an error wrapping ErrNoTools. On any
// error what was started is stopped again.
func Start(ctx context.Context, opts ...Option) (*Plane, error) {
	o := options{nodes: 3, toolsDir: ToolsDir(), podCIDR: "10.0.0.0/16", startup: 3 * time.Minute}
	for _, opt := range opts {
		opt(&o)
	}
	if o.nodes < 0 {
		return nil, fmt.Errorf("kubetest: WithNodes: %d nodes", o.nodes)
	}
	if err := checkTools(o.toolsDir); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "arena-kubetest-")
	if err != nil {
		return nil, err
	}
	p := &Plane{Dir: dir, opts: o}
	ctx, cancel := context.WithTimeout(ctx, o.startup)
	defer cancel()
	if err := p.start(ctx); err != nil {
		return nil, errors.Join(err, p.Close())
	}
	return p, nil
}

func (p *Plane) start(ctx context.Context) error {
	var err error
	if p.pki, err = newPKI(p.Dir); err != nil {
		return err
	}
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	etcd, err := p.run("etcd",
		"--name=kubetest",
		"--data-dir="+filepath.Join(p.Dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=kubetest="+peerURL,
		"--unsafe-no-fsync", "--log-level=warn")
	if err != nil {
		return err
	}
	if err := waitFor(ctx, etcd, func(ctx context.Context) error { return httpOK(ctx, etcdURL+"/health") }); err != nil {
		return err
	}

	host := "https://127.0.0.1:" + strconv.Itoa(ports[2])
	f := p.pki.files
	apiserver, err := p.run("kube-apiserver",
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(ports[2]),
		"--tls-cert-file="+f["serving.crt"], "--tls-private-key-file="+f["serving.key"],
		"--client-ca-file="+f["ca.crt"],
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+f["sa.pub"],
		"--service-account-signing-key-file="+f["sa.key"],
		"--service-cluster-ip-range="+serviceCIDR,
		"--authorization-mode=RBAC",
		// No kubelet mounts service account tokens here: a pod need not
		// wait for its namespace's default service account.
		"--disable-admission-plugins=ServiceAccount",
		// The kubernetes Service cannot point at a loopback address.
		"--endpoint-reconciler-type=none",
		"--enable-priority-and-fairness=false",
		"--profiling=false")
	if err != nil {
		return err
	}
	p.Config = &rest.Config{
		Host: host,
		TLSClientConfig: rest.TLSClientConfig{
			CAData: p.pki.caCert, CertData: p.pki.clientCert, KeyData: p.pki.clientKey,
		},
		QPS: 200, Burst: 400,
	}
	cs, err := kubernetes.NewForConfig(p.Config)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, apiserver, func(ctx context.Context) error {
		_, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err
	}); err != nil {
		return err
	}
	kubeconfig := filepath.Join(p.Dir, "admin.kubeconfig")
	if err := p.writeKubeconfig(kubeconfig); err != nil {
		return err
	}
	if _, err := p.run("kube-controller-manager",
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig, "--authorization-kubeconfig="+kubeconfig,
		"--secure-port=0", "--leader-elect=false",
		"--service-account-private-key-file="+f["sa.key"],
		"--root-ca-file="+f["ca.crt"],
		"--service-cluster-ip-range="+serviceCIDR,
		"--profiling=false"); err != nil {
		return err
	}
	if _, err := p.run("kube-scheduler",
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig, "--authorization-kubeconfig="+kubeconfig,
		"--secure-port=0", "--leader-elect=false", "--profiling=false"); err != nil {
		return err
	}
	if p.opts.runsAgents() {
		p.AgentsErr = p.podNetwork(ctx)
	}
	kwok, err := p.run("kwok",
		"--kubeconfig="+kubeconfig,
		"--config="+filepath.Join(p.opts.toolsDir, StagesFile),
		"--manage-all-nodes=false",
		"--manage-nodes-with-label-selector="+NodeLabel+"=true",
		"--cidr="+p.opts.podCIDR,
		"--node-ip=127.0.0.1",
		"--node-lease-duration-seconds=40",
		"--server-address=", "--node-port=0")
	if err != nil {
		return err
	}
	if err := p.addNodes(ctx, cs, kwok); err != nil {
		return err
	}
	if p.opts.runsAgents() && p.AgentsErr == nil {
		return p.startRunner(ctx, cs)
	}
	return nil
}

// addNodes creates the simulated nodes, waits for kwok to report them
// Ready and removes the not-ready taint the API server gave them.
func (p *Plane) addNodes(ctx context.Context, cs kubernetes.Interface, kwok *proc) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("128Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	for i := range p.opts.nodes {
		name := fmt.Sprintf("kwok-node-%d", i)
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name: name,
				Labels: map[string]string{
					NodeLabel: "true", "type": "kwok",
					"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
				},
				Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
			},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("kubetest: node %s: %w", name, err)
		}
		p.Nodes = append(p.Nodes, name)
	}
	for _, name := range p.Nodes {
		if err := waitFor(ctx, kwok, func(ctx context.Context) error {
			return untaintReady(ctx, cs, name)
		}); err != nil {
			return err
		}
	}
	return nil
}

// untaintReady removes the not-ready taint from a node kwok reports Ready;
// it fails (to be retried) while the node is not Ready or still tainted.
func untaintReady(ctx context.Context, cs kubernetes.Interface, name string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		node, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !nodeReady(node) {
			return fmt.Errorf("node %s is not Ready", name)
		}
		taints := node.Spec.Taints[:0]
		for _, t := range node.Spec.Taints {
			if t.Key != NotReadyTaint {
				taints = append(taints, t)
			}
		}
		if len(taints) == len(node.Spec.Taints) {
			return nil
		}
		node.Spec.Taints = taints
		_, err = cs.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{})
		if err == nil {
			err = fmt.Errorf("node %s: taint removed, checking again", name)
		}
		return err
	})
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// ServiceAccountConfig returns a client config that authenticates as the
// service account namespace/name with a token from the TokenRequest API:
// it may do what RBAC grants that account, nothing more.
func (p *Plane) ServiceAccountConfig(ctx context.Context, namespace, name string) (*rest.Config, error) {
	cs, err := kubernetes.NewForConfig(p.Config)
	if err != nil {
		return nil, err
	}
	tok, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authnv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("kubetest: token for %s/%s: %w", namespace, name, err)
	}
	cfg := rest.AnonymousClientConfig(p.Config)
	cfg.BearerToken = tok.Status.Token
	return cfg, nil
}

func (p *Plane) writeKubeconfig(path string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kubetest"] = &clientcmdapi.Cluster{Server: p.Config.Host, CertificateAuthorityData: p.pki.caCert}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: p.pki.clientCert, ClientKeyData: p.pki.clientKey}
	cfg.Contexts["kubetest"] = &clientcmdapi.Context{Cluster: "kubetest", AuthInfo: "admin"}
	cfg.CurrentContext = "kubetest"
	return clientcmd.WriteToFile(*cfg, path)
}

// Kubeconfig is the path of an administrator's kubeconfig for the plane
// (for kubectl while debugging a test).
func (p *Plane) Kubeconfig() string { return filepath.Join(p.Dir, "admin.kubeconfig") }

// run starts the named binary with its output in Dir/<name>.log.
func (p *Plane) run(name string, args ...string) (*proc, error) {
	logPath := filepath.Join(p.Dir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(p.opts.toolsDir, name), args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("kubetest: start %s: %w", name, err)
	}
	pr := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		pr.err = cmd.Wait()
		logf.Close()
		close(pr.done)
	}()
	p.procs = append(p.procs, pr)
	return pr, nil
}

// Close stops the processes, last started first (SIGTERM, then SIGKILL
// after 10 seconds), and removes Dir. It may be called more than once.
func (p *Plane) Close() error {
	p.once.Do(func() {
		var errs []error
		if p.runner != nil {
			errs = append(errs, p.runner.close())
		}
		for i := len(p.procs) - 1; i >= 0; i-- {
			pr := p.procs[i]
			select {
			case <-pr.done:
				continue // exited already
			default:
			}
			_ = pr.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-pr.done:
			case <-time.After(10 * time.Second):
				_ = pr.cmd.Process.Kill()
				<-pr.done
			}
		}
		errs = append(errs, p.deleteRoute())
		if err := os.RemoveAll(p.Dir); err != nil {
			errs = append(errs, err)
		}
		p.err = errors.Join(errs...)
	})
	return p.err
}

// Exited reports which of the plane's processes have exited, with their
// logs' last lines: a plane in good health has none.
func (p *Plane) Exited() error {
	var errs []error
	for _, pr := range p.procs {
		select {
		case <-pr.done:
			errs = append(errs, pr.exitError())
		default:
		}
	}
	return errors.Join(errs...)
}

func (pr *proc) exitError() error {
	return fmt.Errorf("kubetest: %s exited (%v); last lines of its log:\n%s", pr.name, pr.err, tail(pr.log, 20))
}

// waitFor polls check every 100ms until it succeeds, pr exits or ctx ends.
func waitFor(ctx context.Context, pr *proc, check func(context.Context) error) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := check(cctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-pr.done:
			return pr.exitError()
		case <-ctx.Done():
			return fmt.Errorf("kubetest: waiting for %s: %w (last: %v); last lines of its log:\n%s", pr.name, ctx.Err(), err, tail(pr.log, 20))
		case <-tick.C:
		}
	}
}

func httpOK(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}

// freePorts asks the kernel for n distinct free ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// tail is the last n lines of a file.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
