package containers

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/agentapi/agentfault"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/ctxtime"
)

// KillMode is how StopAgent delivers SIGKILL.
//
// Docker treats a kill through its API (docker kill) as a deliberate stop:
// the restart policy does not restart the container (checked on Docker
// 20.10: State exited, RestartCount 0). A SIGKILL the daemon did not send
// is a crash, and the restart policy restarts the container.
type KillMode string

const (
	// KillAuto: KillSignal when the container's process is visible from
	// this host (a local daemon), else KillAPI.
	KillAuto KillMode = "auto"
	// KillSignal sends SIGKILL to the container's main process from this
	// host (it needs the daemon's PID namespace and the right to signal:
	// root, as with a local dockerd). The restart policy resurrects the
	// agent and `docker inspect` counts it in RestartCount.
	KillSignal KillMode = "signal"
	// KillAPI kills through the Docker API, and the runtime's supervisor
	// starts the container again after WithRestartDelay. Its restarts are
	// counted by the runtime (AgentInfo.Restarts), not by Docker.
	KillAPI KillMode = "api"
)

// StopAgent kills the agent with SIGKILL (see KillMode); its restart policy,
// or the runtime's supervisor, resurrects it. Healing is the system's job:
// kills are never lifted.
func (r *Runtime) StopAgent(ctx context.Context, agentID string) error {
	a, err := r.agent(agentID)
	if err != nil {
		return err
	}
	ins, err := r.inspect(ctx, a)
	if err != nil {
		return err
	}
	if st := status(ins.State); st == fault.StatusStopped {
		return cannotLand(a.ID, "agent is "+string(ins.State.Status))
	}
	if r.opts.killMode != KillAPI {
		if pid := ins.State.Pid; pid > 0 && hostProcess(pid, ins.ID) {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				return fmt.Errorf("containers: agent %s: kill pid %d: %w", a.ID, pid, err)
			}
			if ins.State.Paused {
				// The signal is pending in the frozen cgroup: thaw it to die.
				if _, err := r.docker.ContainerUnpause(ctx, ins.ID, client.ContainerUnpauseOptions{}); err != nil {
					return fmt.Errorf("containers: agent %s: unpause after kill: %w", a.ID, err)
				}
			}
			return r.waitDeath(ctx, a, pid)
		}
		if r.opts.killMode == KillSignal {
			return fmt.Errorf("containers: agent %s: KillSignal: process %d of container %.12s is not visible from this host", a.ID, ins.State.Pid, ins.ID)
		}
	}
	if _, err := r.docker.ContainerKill(ctx, ins.ID, client.ContainerKillOptions{Signal: "KILL"}); err != nil {
		return fmt.Errorf("containers: agent %s: kill: %w", a.ID, err)
	}
	r.supervise(a)
	return nil
}

// waitDeath returns once Docker has seen process pid of the agent die, so
// that a kill has landed when StopAgent returns (as it has when Docker's kill
// API returns): ListAgents then shows the agent stopped, or restarted.
func (r *Runtime) waitDeath(ctx context.Context, a *Agent, pid int) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		ins, err := r.inspect(ctx, a)
		if err != nil {
			return err
		}
		if st := ins.State; st == nil || !st.Running || st.Restarting || st.Pid != pid {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("containers: agent %s: pid %d still running 10s after SIGKILL", a.ID, pid)
		}
		if err := ctxtime.Sleep(ctx, 5*time.Millisecond); err != nil {
			return err
		}
	}
}

// hostProcess reports whether pid on this host is the container's process:
// its cgroup path names the container (cgroup v1 /docker/<id>, v2
// docker-<id>.scope). A remote daemon's PIDs mean nothing here.
func hostProcess(pid int, containerID string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	return err == nil && bytes.Contains(b, []byte(containerID))
}

// supervise starts the container again once it has stopped, after the
// restart delay: the resurrection Docker does not do for API kills.
func (r *Runtime) supervise(a *Agent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.bg.Go(func() {
		ctx := r.bgCtx
		w := r.docker.ContainerWait(ctx, a.ContainerID(), client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
		select {
		case <-w.Result:
		case <-w.Error:
		case <-ctx.Done():
			return
		}
		if ctxtime.Sleep(ctx, r.opts.restartDelay) != nil {
			return
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute) // see reconnect
		defer cancel()
		if _, err := r.docker.ContainerStart(sctx, a.ContainerID(), client.ContainerStartOptions{}); err == nil {
			r.mu.Lock()
			r.live[a.ID].supervised++
			r.mu.Unlock()
		}
	})
}

// PauseAgent freezes the agent's processes (Docker pause, the cgroup
// freezer) until ResumeAgent or its lift, which unpauses it if it is still
// paused.
func (r *Runtime) PauseAgent(ctx context.Context, agentID string) (fault.Lift, error) {
	a, err := r.agent(agentID)
	if err != nil {
		return nil, err
	}
	ins, err := r.settled(ctx, a, func(st *container.State) bool { return st == nil || !st.Paused })
	if err != nil {
		return nil, err
	}
	if st := status(ins.State); st != fault.StatusRunning {
		return nil, cannotLand(a.ID, "agent is "+string(st))
	}
	if _, err := r.docker.ContainerPause(ctx, ins.ID, client.ContainerPauseOptions{}); err != nil {
		return nil, fmt.Errorf("containers: agent %s: pause: %w", a.ID, err)
	}
	// The next fault reads the pause it follows; a context that ends in the
	// wait does not undo a pause that Docker made.
	_, _ = r.settled(ctx, a, func(st *container.State) bool { return st != nil && st.Paused })
	return func(ctx context.Context) error {
		ins, err := r.inspect(ctx, a)
		if err != nil {
			return err
		}
		if ins.State != nil && ins.State.Paused {
			return r.unpause(ctx, a)
		}
		return nil
	}, nil
}

// ResumeAgent thaws a paused agent.
func (r *Runtime) ResumeAgent(ctx context.Context, agentID string) error {
	a, err := r.agent(agentID)
	if err != nil {
		return err
	}
	ins, err := r.inspect(ctx, a)
	if err != nil {
		return err
	}
	if st := status(ins.State); st != fault.StatusPaused {
		return cannotLand(a.ID, "agent is "+string(st)+", not paused")
	}
	return r.unpause(ctx, a)
}

func (r *Runtime) unpause(ctx context.Context, a *Agent) error {
	if _, err := r.docker.ContainerUnpause(ctx, a.ContainerID(), client.ContainerUnpauseOptions{}); err != nil {
		return fmt.Errorf("containers: agent %s: unpause: %w", a.ID, err)
	}
	// The container runs again whatever the wait says: the lifts deferred
	// while it was paused are applied even when ctx ends in it.
	_, err := r.settled(ctx, a, func(st *container.State) bool { return st == nil || !st.Paused })
	r.applyDeferredLifts(ctx, a)
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("containers: agent %s: after unpause: %w", a.ID, err)
	}
	return nil
}

// settleFor bounds how long settled waits for Docker's state to agree.
const settleFor = 2 * time.Second

// settled inspects the agent until ok holds of its state, for at most
// settleFor, and returns the last inspection, whether ok holds or not:
// the wait is for Docker's lag, not a check. Docker applies a pause's own
// event from containerd asynchronously: under load it can arrive after the
// unpause that followed and read "paused" again for a few milliseconds,
// while the container runs (TestNetworkFaultsThroughToxiproxy saw a pause
// refused with "agent is paused" just after its lift). Waiting here makes
// a lift, and the next fault, see the state they caused.
func (r *Runtime) settled(ctx context.Context, a *Agent, ok func(*container.State) bool) (container.InspectResponse, error) {
	deadline := time.Now().Add(settleFor)
	for {
		ins, err := r.inspect(ctx, a)
		if err != nil || ok(ins.State) || time.Now().After(deadline) {
			return ins, err
		}
		if err := ctxtime.Sleep(ctx, 10*time.Millisecond); err != nil {
			return ins, err
		}
	}
}

// cpuLimits are a container's CPU limits as Docker holds them.
type cpuLimits struct{ quota, period, nano int64 }

// cfsPeriod is the CFS period slow_agent throttles over.
const cfsPeriod = 100_000 // µs

// minQuota is the smallest CFS quota the kernel takes.
const minQuota = 1000 // µs

// SlowAgent throttles the agent's CPU (a container update of its CFS quota)
// until its lift restores its limits. The delay is read as "a work unit
// that needs the reference CPU time (WithSlowReference, 100ms) takes delay
// longer": the agent gets ref/(ref+delay) of one CPU, or of its own limit
// when it has a lower one, at least 1ms per 100ms period. Slowing a slowed
// agent changes the throttle; the limits restored are the original ones.
func (r *Runtime) SlowAgent(ctx context.Context, agentID string, delay time.Duration) (fault.Lift, error) {
	a, err := r.agent(agentID)
	if err != nil {
		return nil, err
	}
	if delay <= 0 {
		return nil, cannotLand(a.ID, "delay must be positive, got "+delay.String())
	}
	ins, err := r.inspect(ctx, a)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	orig := r.live[a.ID].slowed
	r.mu.Unlock()
	if orig == nil {
		hc := ins.HostConfig
		orig = &cpuLimits{quota: hc.CPUQuota, period: hc.CPUPeriod, nano: hc.NanoCPUs}
	}
	share := float64(r.opts.slowRef) / float64(r.opts.slowRef+delay)
	var res container.Resources
	if orig.nano > 0 {
		res.NanoCPUs = max(int64(float64(orig.nano)*share), 10_000_000) // Docker's minimum, 0.01 CPU
	} else {
		cpus := 1.0
		if orig.quota > 0 && orig.period > 0 {
			cpus = min(cpus, float64(orig.quota)/float64(orig.period))
		}
		res.CPUPeriod = cfsPeriod
		res.CPUQuota = max(int64(cpus*share*cfsPeriod), minQuota)
	}
	if _, err := r.docker.ContainerUpdate(ctx, ins.ID, client.ContainerUpdateOptions{Resources: &res}); err != nil {
		return nil, fmt.Errorf("containers: agent %s: throttle CPU: %w", a.ID, err)
	}
	r.mu.Lock()
	r.live[a.ID].slowed = orig
	r.mu.Unlock()
	return func(ctx context.Context) error { return r.unslow(ctx, a) }, nil
}

// unslow restores the limits the agent had before slow_agent.
func (r *Runtime) unslow(ctx context.Context, a *Agent) error {
	r.mu.Lock()
	orig := r.live[a.ID].slowed
	r.mu.Unlock()
	if orig == nil {
		return nil
	}
	var res container.Resources
	if orig.nano > 0 {
		res.NanoCPUs = orig.nano
	} else {
		res.CPUPeriod = cmpOr(orig.period, cfsPeriod)
		res.CPUQuota = cmpOr(orig.quota, -1) // -1: no limit (0 would mean "unchanged")
	}
	if _, err := r.docker.ContainerUpdate(ctx, a.ContainerID(), client.ContainerUpdateOptions{Resources: &res}); err != nil {
		return fmt.Errorf("containers: agent %s: restore CPU: %w", a.ID, err)
	}
	r.mu.Lock()
	r.live[a.ID].slowed = nil
	r.mu.Unlock()
	return nil
}

func cmpOr(v, def int64) int64 {
	if v == 0 {
		return def
	}
	return v
}

// PartitionNetwork disconnects the agent from the agents' network: its
// peers cannot reach it, nor can the probe (its published ports go with the
// network). It lasts until its lift reconnects it (arena does when the
// fault's duration is up) or until partition healing (WithPartitionHealing,
// 3s) reconnects it first, which the report then says. The lift ends this
// partition only: not a later one of the same agent.
func (r *Runtime) PartitionNetwork(ctx context.Context, agentID string) (fault.Lift, error) {
	a, err := r.agent(agentID)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	l := r.live[a.ID]
	if l.partitioned {
		r.mu.Unlock()
		return nil, cannotLand(a.ID, "already partitioned")
	}
	l.partitioned = true // claimed: a concurrent partition of the same agent cannot land
	l.partGen++
	gen := l.partGen
	r.mu.Unlock()
	if _, err := r.docker.NetworkDisconnect(ctx, r.network.ID, client.NetworkDisconnectOptions{Container: a.ContainerID()}); err != nil {
		r.mu.Lock()
		l.partitioned = false
		r.mu.Unlock()
		return nil, fmt.Errorf("containers: agent %s: disconnect: %w", a.ID, err)
	}
	if heal := r.opts.partitionHeal; heal > 0 {
		r.goUnlessClosed(func() {
			if ctxtime.Sleep(r.bgCtx, heal) != nil {
				return
			}
			r.mu.Lock()
			current := l.partitioned && l.partGen == gen
			r.mu.Unlock()
			if current && r.reconnect(r.bgCtx, a, gen, 0) == nil {
				healed := time.Now()
				r.mu.Lock()
				l.healed = healed
				r.mu.Unlock()
			}
		})
	}
	return func(ctx context.Context) error {
		if err := r.reconnect(ctx, a, gen, 10); err != nil {
			r.healLater(a, gen) // the engine lifts once; the network must still come back
			return err
		}
		return nil
	}, nil
}

// goUnlessClosed runs f in the background unless the runtime is closed
// (under the lock, so that Close waits for it).
func (r *Runtime) goUnlessClosed(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.bg.Go(f)
	}
}

// reconnect ends partition gen of a (if it is still the current one),
// trying again while Docker refuses: tries times, or until ctx ends when
// tries is 0 (the healer's way: a network that heals does not give up).
func (r *Runtime) reconnect(ctx context.Context, a *Agent, gen, tries int) error {
	var err error
	wait := 100 * time.Millisecond
	for try := 1; ; try++ {
		r.mu.Lock()
		l := r.live[a.ID]
		current := l.partitioned && l.partGen == gen
		r.mu.Unlock()
		if !current {
			return nil
		}
		// The call itself is not cancelled with ctx: a connect the client
		// gives up on goes on in the daemon, and one that completes after
		// Close removed the container leaves a stale endpoint behind that
		// blocks the network's removal.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		_, err = r.docker.NetworkConnect(cctx, r.network.ID, client.NetworkConnectOptions{
			Container: a.ContainerID(), EndpointConfig: &network.EndpointSettings{Aliases: []string{a.ID}},
		})
		cancel()
		if err == nil {
			r.mu.Lock()
			if l.partGen == gen {
				l.partitioned = false
			}
			r.mu.Unlock()
			r.applyDeferredLifts(ctx, a)
			return nil
		}
		if (tries > 0 && try >= tries) || ctxtime.Sleep(ctx, wait) != nil {
			break
		}
		wait = min(2*wait, time.Second)
	}
	return fmt.Errorf("containers: agent %s: reconnect: %w", a.ID, err)
}

// healLater keeps reconnecting partition gen of a in the background, until
// it succeeds or the runtime closes.
func (r *Runtime) healLater(a *Agent, gen int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.bg.Go(func() { r.reconnect(r.bgCtx, a, gen, 0) })
}

// HealedAt reports when partition healing (WithPartitionHealing) reconnected
// the agent after a partition that landed at since, if it did: arena then
// reports the partition healed by the runtime then, before it lifted it.
func (r *Runtime) HealedAt(kind fault.Type, agentID string, since time.Time) (time.Time, bool) {
	if kind != fault.NetworkPartition {
		return time.Time{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.live[agentID]
	if !ok || l.healed.Before(since) {
		return time.Time{}, false
	}
	return l.healed, true
}

// Partitioned reports whether the agent is cut off the network now.
func (r *Runtime) Partitioned(agentID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.live[agentID]
	return ok && l.partitioned
}

// hookable reports whether faults of kind take a hook (WithFaultHook).
func hookable(kind fault.Type) bool { return slices.Contains(hookTypes(), kind) }

// hookTypes are the types a hook can land, in documentation order: those
// that land through agentFault, whose first choice is the kind's hook.
// They are derived from the registry, not listed, so that a new built-in
// type that lands there takes a hook too: the types of the embedded
// agentfault.Faults (agentfault.Types, through landAgentFault) and the DAG
// faults (every built-in whose capability is fault.DAGProvider: RemoveNode,
// RemoveEdge). TestHookTypesAreTheHookPath holds them to what the runtime
// lands through a hook.
func hookTypes() []fault.Type {
	agent := agentfault.Types()
	dag := reflect.TypeFor[fault.DAGProvider]().Name()
	var out []fault.Type
	for _, s := range fault.Specs() {
		if slices.Contains(agent, s.Type) || s.BuiltIn() && s.Capability() == dag {
			out = append(out, s.Type)
		}
	}
	return out
}

// agentFaults are the agent-level faults of every runtime of agentapi
// agents: the capabilities of agentfault.Faults (agentfault.Types), landed
// by landAgentFault.
type agentFaults = agentfault.Faults

// landAgentFault lands an agent-level fault (agentFault), and hands back
// its lift (liftAgentFault).
func (r *Runtime) landAgentFault(ctx context.Context, agentID string, f agentapi.Fault) (fault.Lift, error) {
	if err := r.agentFault(ctx, agentID, f); err != nil {
		return nil, err
	}
	a, _ := r.agent(agentID)
	return func(ctx context.Context) error { return r.liftAgentFault(ctx, a, fault.Type(f.Kind)) }, nil
}

// agentFault lands an agent-level fault through the hook for its kind, or
// the agent's fault-control endpoint.
func (r *Runtime) agentFault(ctx context.Context, agentID string, f agentapi.Fault) error {
	a, err := r.agent(agentID)
	if err != nil {
		return err
	}
	if h, ok := r.opts.hooks[fault.Type(f.Kind)]; ok && h.Inject != nil {
		return h.Inject(ctx, a, f)
	}
	if why := r.unreachable(ctx, a); why != "" {
		return cannotLand(a.ID, why+": its fault-control endpoint is out of reach")
	}
	return r.postFault(ctx, a, f)
}

// unreachable says why the agent's control endpoint cannot answer now
// ("" when it can).
func (r *Runtime) unreachable(ctx context.Context, a *Agent) string {
	if r.Partitioned(a.ID) {
		return "agent is partitioned"
	}
	ins, err := r.inspect(ctx, a)
	if err != nil {
		return err.Error()
	}
	if st := status(ins.State); st != fault.StatusRunning {
		return "agent is " + string(st)
	}
	return ""
}

// liftAgentFault lifts an agent-level fault of kind: DELETE /faults/{kind},
// or the hook's Lift. Lifting a fault that is not active does nothing. An
// agent that is partitioned or paused cannot be lifted now: the lift says
// so, and lifts it when the runtime reconnects or resumes the agent.
func (r *Runtime) liftAgentFault(ctx context.Context, a *Agent, kind fault.Type) error {
	if h, ok := r.opts.hooks[kind]; ok {
		if h.Lift == nil {
			return fmt.Errorf("containers: agent %s: %s: the hook has no Lift", a.ID, kind)
		}
		return h.Lift(ctx, a)
	}
	if why := r.unreachable(ctx, a); why != "" {
		if why == "agent is stopped" {
			return r.deleteFault(ctx, a, string(kind))
		}
		r.deferLift(a, kind)
		return fmt.Errorf("containers: agent %s: %s: lifting %s when the runtime reconnects or resumes it", a.ID, why, kind)
	}
	return r.deleteFault(ctx, a, string(kind))
}

// deferLift notes a lift to apply when the agent is in reach again.
func (r *Runtime) deferLift(a *Agent, kind fault.Type) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if l := r.live[a.ID]; !slices.Contains(l.lifts, kind) {
		l.lifts = append(l.lifts, kind)
	}
}

// applyDeferredLifts lifts the agent-level faults that could not be lifted
// while the agent was out of reach (best effort: the agent may be out of
// reach for another reason still).
func (r *Runtime) applyDeferredLifts(ctx context.Context, a *Agent) {
	r.mu.Lock()
	l := r.live[a.ID]
	lifts := l.lifts
	l.lifts = nil
	r.mu.Unlock()
	for _, k := range lifts {
		if why := r.unreachable(ctx, a); why != "" {
			r.mu.Lock()
			l.lifts = append(l.lifts, k)
			r.mu.Unlock()
			continue
		}
		r.deleteFault(ctx, a, string(k))
	}
}

// RefusedScopes says why the runtime refuses a fault inside an agent that
// the agents' fault-control contract has no kind for (fault.ScopeRefuser):
// the agent-level faults it lands go through that contract (agentfault).
func (r *Runtime) RefusedScopes() map[fault.Scope]string {
	return map[fault.Scope]string{fault.ScopeAgent: agentfault.Uncontracted}
}

// Refusals says why the runtime refuses the built-in types it does not
// land (fault.Refuser).
func (r *Runtime) Refusals() map[fault.Type]string {
	const proxies = "the agents' links go through no proxy: wrap the runtime with containers.NewProxied"
	return map[fault.Type]string{
		fault.NetworkLatency:   proxies,
		fault.NetworkBandwidth: proxies,
		fault.ConnectionReset:  proxies,
	}
}
