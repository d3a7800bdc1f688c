package containers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/ares-arena/arena/internal/ctxtime"
)

// Labels on everything the runtime creates.
const (
	LabelProject   = "arena.project"    // WithProject; what Sweep selects
	LabelRun       = "arena.run"        // one Runtime
	LabelAgent     = "arena.agent"      // the agent's ID (containers, volumes)
	LabelAgentType = "arena.agent.type" // the agent's type (containers)
)

// ErrNoDocker: no Docker daemon answered.
var ErrNoDocker = errors.New("no Docker daemon")

// dockerClient connects to the daemon testcontainers would use and checks
// that it answers.
func dockerClient(ctx context.Context) (*client.Client, error) {
	dc, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: testcontainers found none where it looks (DOCKER_HOST, "+
			"~/.testcontainers.properties, /var/run/docker.sock, the rootless socket): %v", ErrNoDocker, err)
	}
	if _, err := dc.Client.Ping(ctx, client.PingOptions{}); err != nil {
		dc.Client.Close()
		return nil, fmt.Errorf("%w: %v", ErrNoDocker, err)
	}
	return dc.Client, nil
}

// Ping reports whether a Docker daemon answers (ErrNoDocker when none does).
func Ping(ctx context.Context) error {
	cli, err := dockerClient(ctx)
	if err != nil {
		return err
	}
	return cli.Close()
}

// Leftovers lists the containers, networks and volumes labelled
// arena.project=project, as "container <name>", "network <name>" and
// "volume <name>": after Close (or Sweep) it should be empty.
func Leftovers(ctx context.Context, project string) ([]string, error) {
	cli, err := dockerClient(ctx)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	return leftovers(ctx, cli, LabelProject+"="+project)
}

// Sweep removes every container, network and volume labelled
// arena.project=project, including those of runs still going in other
// processes: call it only where no other run of the project can be going.
// Runtime.Close removes what it created; Sweep and SweepStale are for what a
// killed test process left behind (a test binary that times out panics
// without running cleanups).
func Sweep(ctx context.Context, project string) error {
	cli, err := dockerClient(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	return sweep(ctx, cli, LabelProject+"="+project)
}

// SweepStale removes the containers, networks and volumes whose arena.project
// label starts with prefix and that were created more than age ago, or
// whose owner (LabelOwner) is a process of this host that has ended: what
// killed runs left behind, but not what runs still going use. Test binaries
// of one package may run at the same time on one daemon (two CI jobs, two
// people): give each process a project of its own under a common prefix, and
// call SweepStale with the prefix and an age longer than a run, in TestMain.
// A killed process's leftovers on this host then go at the next sweep; the
// age is for those of other hosts (and of owners that cannot be checked).
func SweepStale(ctx context.Context, prefix string, age time.Duration) error {
	cli, err := dockerClient(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	before := time.Now().Add(-age)
	stale := func(labels map[string]string, created time.Time) bool {
		p, ok := labels[LabelProject]
		return ok && strings.HasPrefix(p, prefix) && (created.Before(before) || ownerGone(labels[LabelOwner]))
	}
	return sweepWhere(ctx, cli, labelFilter(LabelProject), stale)
}

func labelFilter(label string) client.Filters {
	return make(client.Filters).Add("label", label)
}

func leftovers(ctx context.Context, cli *client.Client, label string) ([]string, error) {
	var out []string
	cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: labelFilter(label)})
	if err != nil {
		return nil, err
	}
	for _, c := range cs.Items {
		name := c.ID[:12]
		if len(c.Names) > 0 {
			name = strings.TrimPrefix(c.Names[0], "/")
		}
		out = append(out, "container "+name)
	}
	ns, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: labelFilter(label)})
	if err != nil {
		return nil, err
	}
	for _, n := range ns.Items {
		out = append(out, "network "+n.Name)
	}
	vs, err := cli.VolumeList(ctx, client.VolumeListOptions{Filters: labelFilter(label)})
	if err != nil {
		return nil, err
	}
	for _, v := range vs.Items {
		out = append(out, "volume "+v.Name)
	}
	slices.Sort(out)
	return out, nil
}

// sweep removes everything with the label.
func sweep(ctx context.Context, cli *client.Client, label string) error {
	return sweepWhere(ctx, cli, labelFilter(label), nil)
}

// sweepWhere removes the containers, networks and volumes that filter
// selects and pick (if not nil) accepts. A pass that leaves something behind
// (Docker may release a volume a moment after it removed its container) is
// followed by another, a moment later.
func sweepWhere(ctx context.Context, cli *client.Client, filter client.Filters, pick func(labels map[string]string, created time.Time) bool) error {
	if pick == nil {
		pick = func(map[string]string, time.Time) bool { return true }
	}
	// What a pass chose stays chosen, even when its volumes' containers,
	// which dated them, are gone.
	chosen := map[string]bool{}
	choose := func(key string, labels map[string]string, created time.Time) bool {
		if chosen[key] || pick(labels, created) {
			chosen[key] = true
			return true
		}
		return false
	}
	var err error
	for pass := 0; pass < 5; pass++ {
		var left int
		left, err = sweepPass(ctx, cli, filter, choose)
		if left == 0 || ctxtime.Sleep(ctx, 200*time.Millisecond) != nil {
			break
		}
	}
	return err
}

// sweepPass removes what is selected, containers first (they hold the
// networks and volumes), and says how much was selected.
func sweepPass(ctx context.Context, cli *client.Client, filter client.Filters, pick func(key string, labels map[string]string, created time.Time) bool) (int, error) {
	n := 0
	var errs []error
	cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: filter})
	errs = append(errs, err)
	// A volume's CreatedAt is its directory's change time, which moves
	// while an agent writes to it: a volume is as old as the containers of
	// its run, or, with none left, its own time says.
	runCreated := map[string]time.Time{}
	for _, c := range cs.Items {
		created := time.Unix(c.Created, 0)
		if run, ok := c.Labels[LabelRun]; ok {
			if t, seen := runCreated[run]; !seen || created.Before(t) {
				runCreated[run] = created
			}
		}
	}
	for _, c := range cs.Items {
		if pick("container "+c.ID, c.Labels, time.Unix(c.Created, 0)) {
			n++
			_, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
			errs = append(errs, ignoreNotFound(err))
		}
	}
	ns, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: filter})
	errs = append(errs, err)
	for _, nw := range ns.Items {
		if pick("network "+nw.ID, nw.Labels, nw.Created) {
			n++
			errs = append(errs, removeNetwork(ctx, cli, nw.ID))
		}
	}
	vs, err := cli.VolumeList(ctx, client.VolumeListOptions{Filters: filter})
	errs = append(errs, err)
	for _, v := range vs.Items {
		created, err := time.Parse(time.RFC3339, v.CreatedAt)
		if t, ok := runCreated[v.Labels[LabelRun]]; ok {
			created, err = t, nil
		}
		if err == nil && pick("volume "+v.Name, v.Labels, created) {
			n++
			_, err := cli.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{Force: true})
			errs = append(errs, ignoreNotFound(err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return n, fmt.Errorf("sweep: %w", err)
	}
	return n, nil
}

// removeNetwork removes a network. Docker (20.10, under load) can keep the
// endpoint of a container removed while it was being connected: the network
// then "has active endpoints" though no container is left. Those endpoints
// are force-disconnected by name, the way Docker documents, and the removal
// tried again.
func removeNetwork(ctx context.Context, cli *client.Client, id string) error {
	_, err := cli.NetworkRemove(ctx, id, client.NetworkRemoveOptions{})
	if err == nil || cerrdefs.IsNotFound(err) || !strings.Contains(err.Error(), "active endpoints") {
		return ignoreNotFound(err)
	}
	ins, ierr := cli.NetworkInspect(ctx, id, client.NetworkInspectOptions{})
	if ierr != nil {
		return errors.Join(err, ierr)
	}
	for _, ep := range ins.Network.Containers {
		cli.NetworkDisconnect(ctx, id, client.NetworkDisconnectOptions{Container: ep.Name, Force: true})
	}
	_, err = cli.NetworkRemove(ctx, id, client.NetworkRemoveOptions{})
	return ignoreNotFound(err)
}

func ignoreNotFound(err error) error {
	if cerrdefs.IsNotFound(err) {
		return nil
	}
	return err
}
