package containers

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tcnetwork "github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/agentapi/agentfault"
	"github.com/ares-arena/arena/fault"
)

// Compile-time checks: a Runtime is a complete system for the engine.
var (
	_ fault.RuntimeProvider = (*Runtime)(nil)
	_ fault.Refuser         = (*Runtime)(nil)
	_ fault.HealReporter    = (*Runtime)(nil)
	_ fault.DAGProvider     = (*Runtime)(nil)
)

// ErrNoEdge: the agent has no such outgoing edge (AgentRoutes). The other
// errors of fault injection are arena's, wrapped with the agent's ID:
// fault.ErrNoAgent for an unknown agent, fault.ErrCannotLand when the
// agent's state rules the fault out (pause a paused agent, kill a stopped
// one, partition a partitioned one, reach a partitioned agent's
// fault-control endpoint), fault.ErrUnsupported when the agent does not
// implement the fault (its fault-control endpoint answered 404 or 501).
var ErrNoEdge = errors.New("no such edge")

// Runtime is a system of agents running in Docker containers, started with
// testcontainers-go. It implements fault.RuntimeProvider and
// fault.DAGProvider (each fault arena lifts hands back its lift), and
// offers a Probe and Checks: everything a Service needs to score real
// containers. It is safe for concurrent use. Close removes everything it
// created.
type Runtime struct {
	agentFaults // the agent-level faults: agentfault.Types (landAgentFault)

	opts    options
	docker  *client.Client
	runID   string
	labels  map[string]string
	host    string // where mapped ports are reached
	bindIP  netip.Addr
	network *testcontainers.DockerNetwork
	agents  []*Agent // in ID order
	byID    map[string]*Agent
	probeC  *http.Client
	ctlC    *http.Client
	tox     *toxiproxy.ApiServer // the proxies' server, in this process
	links   []*link              // agent-to-agent links through proxies

	bgCtx    context.Context // ends at Close: supervisors, partition healing
	bgCancel context.CancelFunc
	bg       sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	created []testcontainers.Container // every container, started or not
	volumes []string
	live    map[string]*agentLive
}

// agentLive is what the runtime did to an agent and must undo or count.
type agentLive struct {
	partitioned bool
	partGen     int
	healed      time.Time // when partition healing last reconnected it
	healTimer   *time.Timer
	slowed      *cpuLimits // the limits before slow_agent, to restore
	supervised  int        // restarts by the supervisor (KillAPI)
	lifts       []fault.Type
}

// Agent is one agent of a Runtime.
type Agent struct {
	ID        string
	Type      string
	Routes    []string // outgoing edges of the task DAG
	Reference bool     // an agentd agent of WithReferenceAgents
	Container testcontainers.Container
	Volume    string // the data volume's name ("" none)

	port     string // control port, "8080/tcp"
	endpoint string // base URL of the control port through its mapped host port
	health   string // health path on the control port
}

// ContainerID returns the agent's Docker container ID.
func (a *Agent) ContainerID() string { return a.Container.GetContainerID() }

// Endpoint returns the base URL of the agent's control port on the host,
// such as "http://127.0.0.1:41234". The host port is fixed for the agent's
// life, through restarts and partitions.
func (a *Agent) Endpoint() string { return a.endpoint }

// NewRuntime starts the agents of opts (WithReferenceAgents, WithAgent) on a
// network of their own and returns when every one is healthy. On error it
// removes whatever it had created. ErrNoDocker says that no daemon answered.
func NewRuntime(ctx context.Context, opts ...Option) (rt *Runtime, err error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt.apply(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	cli, err := dockerClient(ctx)
	if err != nil {
		return nil, err
	}
	r := &Runtime{opts: o, docker: cli, runID: newRunID(), byID: map[string]*Agent{}, live: map[string]*agentLive{}}
	r.agentFaults = agentfault.Faults{Land: r.landAgentFault}
	r.bgCtx, r.bgCancel = context.WithCancel(context.Background())
	r.labels = maps.Clone(o.labels)
	if r.labels == nil {
		r.labels = map[string]string{}
	}
	r.labels[LabelProject], r.labels[LabelRun], r.labels[LabelOwner] = o.project, r.runID, processOwner
	r.tox = newToxServer()
	r.probeC = &http.Client{Timeout: o.probeTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: 5 * time.Second}}
	r.ctlC = &http.Client{Timeout: o.ctlTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: 2, IdleConnTimeout: 5 * time.Second}}
	defer func() {
		if err != nil {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			err = errors.Join(err, r.Close(cctx))
			rt = nil
		}
	}()

	specs := o.agents
	if o.refWorkers > 0 {
		image := o.refImage
		if image == "" {
			if image, err = buildAgentImage(ctx, cli); err != nil {
				return nil, err
			}
		}
		specs = append(referenceSpecs(image, o.refWorkers, o.refEnv), specs...)
	}
	if err := checkSpecs(specs); err != nil {
		return nil, err
	}
	if err := checkLinks(specs, o.links); err != nil {
		return nil, err
	}
	if err := r.daemonHost(ctx); err != nil {
		return nil, err
	}
	r.network, err = tcnetwork.New(ctx, tcnetwork.WithLabels(r.labels))
	if err != nil {
		return nil, fmt.Errorf("network: %w", err)
	}

	for i := range specs {
		if err := r.planPorts(&specs[i]); err != nil {
			return nil, fmt.Errorf("agent %s: %w", specs[i].id, err)
		}
	}
	if err := r.startLinks(ctx, specs); err != nil {
		return nil, err
	}

	var wg sync.WaitGroup
	errs := make([]error, len(specs))
	for i, s := range specs {
		wg.Go(func() {
			a, err := r.startAgent(ctx, s)
			if err != nil {
				errs[i] = fmt.Errorf("agent %s: %w", s.id, err)
				return
			}
			r.mu.Lock()
			r.agents = append(r.agents, a)
			r.byID[a.ID] = a
			r.live[a.ID] = &agentLive{}
			r.mu.Unlock()
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortFunc(r.agents, func(a, b *Agent) int { return cmp.Compare(a.ID, b.ID) })
	return r, nil
}

func newRunID() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// referenceSpecs is the reference cluster: leader-0 → orchestrator-0 →
// worker-1 … worker-n.
func referenceSpecs(image string, workers int, env map[string]string) []agentSpec {
	mk := func(id, typ string, routes []string) agentSpec {
		e := map[string]string{
			"AGENTD_ID": id, "AGENTD_TYPE": typ, "AGENTD_ROUTES": strings.Join(routes, ","),
			"AGENTD_DATA": "/data",
		}
		maps.Copy(e, env)
		return agentSpec{
			id: id, typ: typ, routes: routes, port: agentapi.DefaultPort, volume: "/data", reference: true,
			req: testcontainers.ContainerRequest{Image: image, Env: e, ExposedPorts: []string{agentapi.DefaultPort}},
		}
	}
	var ws []string
	for i := 1; i <= workers; i++ {
		ws = append(ws, "worker-"+strconv.Itoa(i))
	}
	specs := []agentSpec{
		mk("leader-0", fault.TypeLeader, []string{"orchestrator-0"}),
		mk("orchestrator-0", fault.TypeOrchestrator, ws),
	}
	for _, w := range ws {
		specs = append(specs, mk(w, fault.TypeWorker, nil))
	}
	return specs
}

func checkSpecs(specs []agentSpec) error {
	ids := map[string]bool{}
	for _, s := range specs {
		if s.id == "" || strings.ContainsAny(s.id, " \t\r\n/") || s.typ == "" {
			return fmt.Errorf("containers: agent %q of type %q: want a non-empty ID without spaces or slashes, and a type", s.id, s.typ)
		}
		if ids[s.id] {
			return fmt.Errorf("containers: two agents with ID %q", s.id)
		}
		ids[s.id] = true
	}
	for _, s := range specs {
		for _, to := range s.routes {
			if !ids[to] {
				return fmt.Errorf("containers: agent %s routes to unknown agent %q", s.id, to)
			}
		}
	}
	return nil
}

// daemonHost finds where mapped ports are reached, and so which host IP to
// bind them to: loopback for a local daemon, every interface otherwise.
func (r *Runtime) daemonHost(ctx context.Context) error {
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return err
	}
	defer p.Close()
	r.host, err = p.DaemonHost(ctx)
	if err != nil {
		return err
	}
	if ip, err := netip.ParseAddr(r.host); (err == nil && ip.IsLoopback()) || r.host == "localhost" {
		r.bindIP = netip.MustParseAddr("127.0.0.1")
	}
	return nil
}

var ports struct {
	sync.Mutex
	used map[int]bool
}

// hostPort picks a free host port, never the same twice in this process. A
// fixed host port (rather than Docker's random one, which changes on every
// restart and reconnect) keeps an agent's endpoint stable through its faults.
func (r *Runtime) hostPort() (int, error) {
	ports.Lock()
	defer ports.Unlock()
	if ports.used == nil {
		ports.used = map[int]bool{}
	}
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !ports.used[p] {
			ports.used[p] = true
			return p, nil
		}
	}
	return 0, errors.New("no free host port")
}

// startAgent starts one agent, retrying when another process took its host
// port in the meantime.
func (r *Runtime) startAgent(ctx context.Context, s agentSpec) (*Agent, error) {
	for attempt := 1; ; attempt++ {
		a, err := r.tryStart(ctx, s)
		if err != nil && attempt < 3 && strings.Contains(err.Error(), "port is already allocated") {
			if err := r.planPorts(&s); err != nil {
				return nil, err
			}
			if err := r.retarget(s); err != nil {
				return nil, err
			}
			continue
		}
		return a, err
	}
}

// planPorts picks the agent's control port and a fixed host port for each
// of its exposed ports. It runs before the agent starts, so that the
// proxies of the links to it know their upstream already.
func (r *Runtime) planPorts(s *agentSpec) error {
	port := s.port
	if port == "" && len(s.req.ExposedPorts) > 0 {
		port = s.req.ExposedPorts[0]
	}
	ctlPort, err := network.ParsePort(cmp.Or(port, agentapi.DefaultPort))
	if err != nil {
		return fmt.Errorf("control port: %w", err)
	}
	exposed := slices.Clone(s.req.ExposedPorts)
	if !slices.ContainsFunc(exposed, func(p string) bool { q, err := network.ParsePort(p); return err == nil && q == ctlPort }) {
		exposed = append(exposed, ctlPort.String())
	}
	s.ctlPort, s.exposed, s.hostPorts = ctlPort, exposed, map[network.Port]int{}
	for _, p := range exposed {
		pp, err := network.ParsePort(p)
		if err != nil {
			return fmt.Errorf("exposed port %q: %w", p, err)
		}
		if s.hostPorts[pp], err = r.hostPort(); err != nil {
			return err
		}
	}
	return nil
}

func (r *Runtime) tryStart(ctx context.Context, s agentSpec) (*Agent, error) {
	req := s.req
	name := "arena-" + r.runID + "-" + s.id
	req.Name = name
	req.Labels = maps.Clone(req.Labels)
	if req.Labels == nil {
		req.Labels = map[string]string{}
	}
	maps.Copy(req.Labels, r.labels)
	req.Labels[LabelAgent], req.Labels[LabelAgentType] = s.id, s.typ
	req.Networks = append(slices.Clone(req.Networks), r.network.Name)
	req.NetworkAliases = maps.Clone(req.NetworkAliases)
	if req.NetworkAliases == nil {
		req.NetworkAliases = map[string][]string{}
	}
	req.NetworkAliases[r.network.Name] = append(req.NetworkAliases[r.network.Name], s.id)

	req.ExposedPorts = s.exposed
	bindings := network.PortMap{}
	for pp, hp := range s.hostPorts {
		bindings[pp] = []network.PortBinding{{HostIP: r.bindIP, HostPort: strconv.Itoa(hp)}}
	}
	ctlPort, ctlHost := s.ctlPort, s.hostPorts[s.ctlPort]
	user := req.HostConfigModifier
	req.HostConfigModifier = func(hc *container.HostConfig) {
		if user != nil {
			user(hc)
		}
		if hc.PortBindings == nil {
			hc.PortBindings = network.PortMap{}
		}
		maps.Copy(hc.PortBindings, bindings)
		if hc.RestartPolicy.Name == "" {
			hc.RestartPolicy = container.RestartPolicy{Name: container.RestartPolicyAlways}
		}
	}
	var volume string
	if s.volume != "" {
		volume = name
		req.Mounts = append(slices.Clone(req.Mounts), testcontainers.ContainerMount{
			Source: testcontainers.DockerVolumeMountSource{Name: volume, VolumeOptions: &mount.VolumeOptions{Labels: maps.Clone(req.Labels)}},
			Target: testcontainers.ContainerMountTarget(s.volume),
		})
		r.mu.Lock()
		r.volumes = append(r.volumes, volume)
		r.mu.Unlock()
	}
	health := cmp.Or(s.health, agentapi.PathHealth)
	if req.WaitingFor == nil {
		req.WaitingFor = wait.ForHTTP(health).WithPort(ctlPort.String()).
			WithStartupTimeout(r.opts.startTimeout).WithPollInterval(50 * time.Millisecond)
	}

	c, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
		ContainerRequest: req, Started: true, Logger: r.opts.logger,
	})
	if c != nil && !isNil(c) {
		r.mu.Lock()
		r.created = append(r.created, c)
		r.mu.Unlock()
	}
	if err != nil {
		if c != nil && !isNil(c) {
			err = fmt.Errorf("%w%s", err, startDiagnosis(ctx, c, name))
			// Make room for a retry under the same name.
			c.Terminate(context.WithoutCancel(ctx), testcontainers.StopTimeout(0))
		}
		return nil, err
	}
	return &Agent{
		ID: s.id, Type: s.typ, Routes: slices.Clone(s.routes), Reference: s.reference, Container: c, Volume: volume,
		port: ctlPort.String(), endpoint: "http://" + net.JoinHostPort(r.host, strconv.Itoa(ctlHost)), health: health,
	}, nil
}

// isNil reports a typed nil in the interface (GenericContainer returns a
// nil *DockerContainer as a Container on some errors).
func isNil(c testcontainers.Container) bool {
	dc, ok := c.(*testcontainers.DockerContainer)
	return ok && dc == nil
}

// RunID returns the value of the arena.run label of this runtime's
// containers, network and volumes.
func (r *Runtime) RunID() string { return r.runID }

// Project returns the arena.project label (WithProject).
func (r *Runtime) Project() string { return r.opts.project }

// Network returns the name of the agents' Docker network.
func (r *Runtime) Network() string { return r.network.Name }

// Agents returns the agents in ID order.
func (r *Runtime) Agents() []*Agent { return slices.Clone(r.agents) }

// Agent returns the agent with this ID.
func (r *Runtime) Agent(id string) (*Agent, bool) {
	a, ok := r.byID[id]
	return a, ok
}

// Docker returns the runtime's Docker client, for tests that look at the
// containers from outside. It is closed by Close.
func (r *Runtime) Docker() *client.Client { return r.docker }

func (r *Runtime) agent(id string) (*Agent, error) {
	if a, ok := r.byID[id]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("containers: agent %q: %w", id, fault.ErrNoAgent)
}

// markClosed marks the runtime closed, stops its heal timers and returns
// what Close removes; closing is false when it was closed already.
func (r *Runtime) markClosed() (created []testcontainers.Container, volumes []string, closing bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, nil, false
	}
	r.closed = true
	for _, l := range r.live {
		if l.healTimer != nil {
			l.healTimer.Stop()
		}
	}
	return r.created, r.volumes, true
}

// Close stops the runtime's background work (partition healing, the kill
// supervisor), removes its containers, volumes and network, then sweeps
// whatever else carries its arena.run label. It is idempotent; give it a
// context that is still live (not the one of a test that timed out).
func (r *Runtime) Close(ctx context.Context) error {
	created, volumes, closing := r.markClosed()
	if !closing {
		return nil
	}
	r.bgCancel()
	r.bg.Wait()

	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, c := range created {
		wg.Go(func() {
			if err := c.Terminate(ctx, testcontainers.StopTimeout(0)); err != nil && !cerrNotFound(err) {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, v := range volumes {
		if _, err := r.docker.VolumeRemove(ctx, v, client.VolumeRemoveOptions{Force: true}); ignoreNotFound(err) != nil {
			errs = append(errs, err)
		}
	}
	if r.network != nil {
		if err := r.network.Remove(ctx); err != nil && !cerrNotFound(err) {
			errs = append(errs, removeNetwork(ctx, r.docker, r.network.ID))
		}
	}
	errs = append(errs, sweep(ctx, r.docker, LabelRun+"="+r.runID))
	r.stopLinks()
	r.probeC.CloseIdleConnections()
	r.ctlC.CloseIdleConnections()
	errs = append(errs, r.docker.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("containers: close run %s: %w", r.runID, err)
	}
	return nil
}

func cerrNotFound(err error) bool {
	return ignoreNotFound(err) == nil || strings.Contains(err.Error(), "No such container") ||
		strings.Contains(err.Error(), "not found")
}

// inspect returns the agent's container as Docker sees it now.
func (r *Runtime) inspect(ctx context.Context, a *Agent) (container.InspectResponse, error) {
	res, err := r.docker.ContainerInspect(ctx, a.ContainerID(), client.ContainerInspectOptions{})
	if err != nil {
		return container.InspectResponse{}, fmt.Errorf("containers: agent %s: inspect: %w", a.ID, err)
	}
	return res.Container, nil
}

// status maps Docker's state to arena's: restarting, exited and dead are
// stopped (a killed agent is stopped until its restart completes).
func status(st *container.State) fault.AgentStatus {
	switch {
	case st == nil:
		return fault.StatusStopped
	case st.Paused:
		return fault.StatusPaused
	case st.Running && !st.Restarting:
		return fault.StatusRunning
	default:
		return fault.StatusStopped
	}
}

// ListAgents returns every agent in ID order, with its status and restarts
// as Docker reports them (plus the supervisor's restarts under KillAPI).
func (r *Runtime) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
	out := make([]fault.AgentInfo, len(r.agents))
	errs := make([]error, len(r.agents))
	var wg sync.WaitGroup
	for i, a := range r.agents {
		wg.Go(func() {
			ins, err := r.inspect(ctx, a)
			if err != nil {
				errs[i] = err
				return
			}
			r.mu.Lock()
			sup := r.live[a.ID].supervised
			r.mu.Unlock()
			out[i] = fault.AgentInfo{ID: a.ID, Type: a.Type, Status: status(ins.State), Restarts: ins.RestartCount + sup}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if r.opts.roles != nil {
		resolved, err := r.opts.roles(ctx, out)
		if err != nil {
			return nil, fmt.Errorf("containers: resolve roles: %w", err)
		}
		return resolved, nil
	}
	return out, nil
}

func cannotLand(id, why string) error {
	return fmt.Errorf("containers: agent %q: %w: %s", id, fault.ErrCannotLand, why)
}
