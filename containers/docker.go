package containers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
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
// arena.project=project. Runtime.Close removes what it created; Sweep is for
// what a killed test process left behind (a test binary that times out
// panics without running cleanups). Call it from TestMain, before and after
// m.Run, with the project of that package's runtimes.
func Sweep(ctx context.Context, project string) error {
	cli, err := dockerClient(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	return sweep(ctx, cli, LabelProject+"="+project)
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

// sweep removes containers first (they hold the networks and volumes).
func sweep(ctx context.Context, cli *client.Client, label string) error {
	var errs []error
	cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: labelFilter(label)})
	errs = append(errs, err)
	for _, c := range cs.Items {
		_, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		errs = append(errs, ignoreNotFound(err))
	}
	ns, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: labelFilter(label)})
	errs = append(errs, err)
	for _, n := range ns.Items {
		_, err := cli.NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{})
		errs = append(errs, ignoreNotFound(err))
	}
	vs, err := cli.VolumeList(ctx, client.VolumeListOptions{Filters: labelFilter(label)})
	errs = append(errs, err)
	for _, v := range vs.Items {
		_, err := cli.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{Force: true})
		errs = append(errs, ignoreNotFound(err))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sweep %s: %w", label, err)
	}
	return nil
}

func ignoreNotFound(err error) error {
	if cerrdefs.IsNotFound(err) {
		return nil
	}
	return err
}
