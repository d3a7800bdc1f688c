package raftsim

import (
	"context"
	"fmt"
	"io"
	mathrand "math/rand"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/sim"
)

// RaftPort is where every node's raft transport listens.
const RaftPort = 7000

// Config tunes the cluster. Zero fields: raft's defaults (DefaultConfig).
type Config struct {
	Nodes        int           // voters: 3 or 5 (default 3)
	RestartAfter time.Duration // a killed node's supervisor starts it again after this (default 2s; negative: never)
	Raft         func(*raft.Config)
	// SeedRaft seeds math/rand's global source, from which raft draws its
	// election timeouts, with the world's seed. Raft takes no source of its
	// own, and since Go 1.24 rand.Seed does nothing unless the binary sets
	// GODEBUG randseednop=0 (this example's tests do, with a //go:debug
	// line): without both, every run draws other timeouts.
	SeedRaft bool
}

// Cluster is a hashicorp/raft cluster (unmodified, v1.7.2) of nodes
// "raft-1", "raft-2", … on a sim world, each with its raft transport over
// the world's network (raft.NewNetworkTransport on a StreamLayer made of
// the node's listener and dialer), its in-memory log, stable and snapshot
// stores kept across a kill as a disk would be, and a KV state machine
// that is lost at a kill, as memory is, and rebuilt from the stores.
type Cluster struct {
	World *sim.World
	Names []string
	cfg   Config

	nodes map[string]*raftNode
}

// raftNode is one server: its "disk" (the stores), and its current
// incarnation (nil while down).
type raftNode struct {
	name  string
	logs  *raft.InmemStore
	snaps *raft.InmemSnapshotStore
	boot  bool // bootstrapped: the disk has the cluster's configuration

	mu    sync.Mutex
	r     *raft.Raft
	kv    *KV
	trans *raft.NetworkTransport
}

// NewCluster adds the raft nodes to w and starts them, bootstrapped with
// every node as a voter.
func NewCluster(w *sim.World, cfg Config) (*Cluster, error) {
	if cfg.Nodes == 0 {
		cfg.Nodes = 3
	}
	if cfg.RestartAfter == 0 {
		cfg.RestartAfter = 2 * time.Second
	}
	if cfg.SeedRaft {
		mathrand.Seed(int64(w.Seed())) //nolint:staticcheck // raft reads the global source
	}
	c := &Cluster{World: w, cfg: cfg, nodes: map[string]*raftNode{}}
	for i := range cfg.Nodes {
		name := fmt.Sprintf("raft-%d", i+1)
		c.Names = append(c.Names, name)
		c.nodes[name] = &raftNode{name: name, logs: raft.NewInmemStore(), snaps: raft.NewInmemSnapshotStore()}
	}
	for _, name := range c.Names {
		_, err := w.AddNode(name, sim.NodeConfig{Type: "follower", Start: c.start, Stop: c.stop, RestartAfter: cfg.RestartAfter})
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

// streamLayer is raft's StreamLayer over a sim node: its listener, and
// dials from it.
type streamLayer struct {
	net.Listener
	node *sim.Node
}

func (s streamLayer) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return s.node.DialTimeout(string(addr), timeout)
}

// quiet is raft's logger: errors only, thrown away (a day of elections
// would print megabytes).
var quiet = hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.Off, Output: io.Discard})

func (c *Cluster) start(ctx context.Context, n *sim.Node) error {
	rn := c.nodes[n.Name()]
	l, err := n.Listen(fmt.Sprintf(":%d", RaftPort))
	if err != nil {
		return err
	}
	trans := raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream: streamLayer{Listener: l, node: n}, MaxPool: 3, Timeout: time.Second, Logger: quiet,
	})
	conf := raft.DefaultConfig()
	conf.LocalID = raft.ServerID(rn.name)
	conf.Logger = quiet
	if c.cfg.Raft != nil {
		c.cfg.Raft(conf)
	}
	if !rn.boot {
		var servers []raft.Server
		for _, name := range c.Names {
			servers = append(servers, raft.Server{ID: raft.ServerID(name), Address: raft.ServerAddress(fmt.Sprintf("%s:%d", name, RaftPort))})
		}
		if err := raft.BootstrapCluster(conf, rn.logs, rn.logs, rn.snaps, trans, raft.Configuration{Servers: servers}); err != nil {
			trans.Close()
			return err
		}
		rn.boot = true
	}
	kv := NewKV()
	r, err := raft.NewRaft(conf, kv, rn.logs, rn.logs, rn.snaps, trans)
	if err != nil {
		trans.Close()
		return err
	}
	rn.mu.Lock()
	rn.r, rn.kv, rn.trans = r, kv, trans
	rn.mu.Unlock()
	return nil
}

func (c *Cluster) stop(ctx context.Context, n *sim.Node) error {
	rn := c.nodes[n.Name()]
	rn.mu.Lock()
	r, trans := rn.r, rn.trans
	rn.r, rn.kv, rn.trans = nil, nil, nil
	rn.mu.Unlock()
	if r == nil {
		return nil
	}
	err := r.Shutdown().Error()
	trans.Close()
	return err
}

// Raft returns the node's raft and state machine, or nils while it is down.
func (c *Cluster) Raft(name string) (*raft.Raft, *KV) {
	rn := c.nodes[name]
	if rn == nil {
		return nil, nil
	}
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.r, rn.kv
}

// Leader returns the node that leads now, with the highest term when a
// deposed leader cut off from the others still believes it leads; "" when
// none does.
func (c *Cluster) Leader() string {
	best, term := "", uint64(0)
	for _, name := range c.Names {
		r, _ := c.Raft(name)
		if r == nil || r.State() != raft.Leader {
			continue
		}
		if t := r.CurrentTerm(); best == "" || t > term {
			best, term = name, t
		}
	}
	return best
}

// Roles is the cluster's role resolver for arena: the node that leads now
// is "leader", the others "follower", so kill_leader and type:leader
// follow raft's own elections.
func (c *Cluster) Roles(ctx context.Context, agents []fault.AgentInfo) ([]fault.AgentInfo, error) {
	leader := c.Leader()
	out := slices.Clone(agents)
	for i := range out {
		if !strings.HasPrefix(out[i].ID, "raft-") {
			continue
		}
		out[i].Type = "follower"
		if out[i].ID == leader {
			out[i].Type = fault.TypeLeader
		}
	}
	return out, nil
}

// nameOf maps a raft address ("raft-2:7000") to its node's name.
func nameOf(addr raft.ServerAddress) string {
	host, _, err := net.SplitHostPort(string(addr))
	if err != nil {
		return ""
	}
	return host
}
