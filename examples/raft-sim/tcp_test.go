package raftsim

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/netfault"
)

// TestPartitionOverTCP (real time): hashicorp/raft, unmodified, three nodes
// on real loopback TCP (127.0.0.2-4), each dialing its peers through a
// netfault.Network: the StreamLayer's Dial is the network's Dialer, and
// nothing else of raft knows. arena, with the network as its runtime,
// partitions the leader for 4s (network_partition). A writer appends to
// one key through whichever node leads, every 20ms; its own record is the
// outage measured apart from arena, logged beside arena's time to
// recover. The run must see a new leader take over while the old one is
// cut off, the two outages agree, and no acknowledged write be lost or
// applied twice.
func TestPartitionOverTCP(t *testing.T) {
	switch {
	case testing.Short():
		t.Skip("seconds of real time")
	case arenatest.Deterministic():
		t.Skip("real TCP sockets in real time, which wasip1 has neither of")
	}
	ids := []string{"n1", "n2", "n3"}
	var opts []netfault.Option
	for i, id := range ids {
		opts = append(opts, netfault.WithAgent(id, "node", fmt.Sprintf("127.0.0.%d", i+2)))
	}
	network := netfault.New(nil, opts...)
	defer network.Close()
	c := startTCPCluster(t, network, ids)
	old := c.waitLeader(t, 10*time.Second)

	w := startWriter(c)
	svc := engine.NewService(fault.NewInjectorFor(network), events.NewMemoryStore(), nil, engine.WithProbe(c.probe))
	const at, length = 2 * time.Second, 4 * time.Second
	rep, err := engine.RunSchedule(context.Background(), svc, engine.RunOptions{Seed: 1, Duration: at + length + 3*time.Second},
		engine.Step{At: at, Action: fault.Action{Type: fault.NetworkPartition, TargetID: old, Metadata: map[string]any{"duration": length.String()}}})
	acks := w.stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Faults) != 1 || rep.Landed != 1 {
		t.Fatalf("landed %d faults: %+v", rep.Landed, rep.Faults)
	}
	f := rep.Faults[0]
	landed := rep.Start.Add(f.At.D() + f.InjectDuration.D())
	outage := w.outage(landed, landed.Add(length))
	t.Logf("network_partition of leader %s for %s, real time: arena's TTR %s (recovered %v), the writer's own outage %s; %d writes acknowledged; score %.1f %s",
		old, length, f.TTR.D(), f.Recovered, outage, len(acks), rep.Score.Total, rep.Score.Grade)
	if !f.Recovered || outage <= 0 {
		t.Fatalf("recovered %v, writer's outage %s: want an outage that healed while the partition lasted", f.Recovered, outage)
	}
	if d := f.TTR.D() - outage; d < -750*time.Millisecond || d > 750*time.Millisecond {
		t.Errorf("arena's TTR %s and the writer's outage %s differ by %s, want within 750ms", f.TTR.D(), outage, d)
	}
	if by := w.ackedBy(landed, landed.Add(length)); len(by) == 0 || slices.Contains(by, old) {
		t.Errorf("writes acknowledged during the partition by %v: want only a new leader, not %s", by, old)
	}
	c.waitLeader(t, 10*time.Second)
	c.checkWrites(t, acks)
}

// tcpCluster is three raft nodes on loopback TCP.
type tcpCluster struct {
	ids   []string
	rafts map[string]*raft.Raft
	kvs   map[string]*KV
}

// tcpLayer is raft's StreamLayer: a real listener, and dials through
// netfault. It keeps every connection, to close them when the test ends
// (raft's transport leaves its pooled and accepted ones open).
type tcpLayer struct {
	net.Listener
	dial netfault.DialFunc

	mu    sync.Mutex
	conns []net.Conn
}

func (l *tcpLayer) keep(c net.Conn, err error) (net.Conn, error) {
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

func (l *tcpLayer) Accept() (net.Conn, error) { return l.keep(l.Listener.Accept()) }

func (l *tcpLayer) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return l.keep(l.dial(ctx, "tcp", string(addr)))
}

// closeAll closes the connections kept.
func (l *tcpLayer) closeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
}

func startTCPCluster(t *testing.T, network *netfault.Network, ids []string) *tcpCluster {
	c := &tcpCluster{ids: ids, rafts: map[string]*raft.Raft{}, kvs: map[string]*KV{}}
	layers := map[string]*tcpLayer{}
	var servers []raft.Server
	for i, id := range ids {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", i+2))
		if err != nil {
			t.Fatal(err)
		}
		layers[id] = &tcpLayer{Listener: l, dial: network.Dialer(id, nil)}
		servers = append(servers, raft.Server{ID: raft.ServerID(id), Address: raft.ServerAddress(l.Addr().String())})
	}
	for _, id := range ids {
		conf := raft.DefaultConfig()
		conf.LocalID, conf.Logger = raft.ServerID(id), quiet
		conf.HeartbeatTimeout, conf.ElectionTimeout, conf.LeaderLeaseTimeout = 500*time.Millisecond, 500*time.Millisecond, 250*time.Millisecond
		trans := raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{Stream: layers[id], MaxPool: 3, Timeout: time.Second, Logger: quiet})
		logs, snaps, kv := raft.NewInmemStore(), raft.NewInmemSnapshotStore(), NewKV()
		if err := raft.BootstrapCluster(conf, logs, logs, snaps, trans, raft.Configuration{Servers: servers}); err != nil {
			t.Fatal(err)
		}
		r, err := raft.NewRaft(conf, kv, logs, logs, snaps, trans)
		if err != nil {
			t.Fatal(err)
		}
		c.rafts[id], c.kvs[id] = r, kv
		t.Cleanup(func() { r.Shutdown().Error(); trans.Close(); layers[id].closeAll() })
	}
	return c
}

// leader is the node that leads, with the highest term when a deposed one
// cut off from the others still believes it does; "" for none.
func (c *tcpCluster) leader() string {
	best, term := "", uint64(0)
	for _, id := range c.ids {
		if r := c.rafts[id]; r.State() == raft.Leader && (best == "" || r.CurrentTerm() > term) {
			best, term = id, r.CurrentTerm()
		}
	}
	return best
}

func (c *tcpCluster) waitLeader(t *testing.T, within time.Duration) string {
	t.Helper()
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if l := c.leader(); l != "" && c.rafts[l].Barrier(time.Second).Error() == nil {
			return l
		}
	}
	t.Fatalf("no leader within %s", within)
	return ""
}

// probe is arena's probe, apart from the writer: the leader commits a
// barrier within 300ms.
func (c *tcpCluster) probe(ctx context.Context) error {
	l := c.leader()
	if l == "" {
		return fmt.Errorf("no leader")
	}
	if err := c.rafts[l].Barrier(300 * time.Millisecond).Error(); err != nil {
		return fmt.Errorf("leader %s: %w", l, err)
	}
	return nil
}

// checkWrites: every acknowledged value is in every node's list once, and
// no value is there twice.
func (c *tcpCluster) checkWrites(t *testing.T, acks []uint64) {
	t.Helper()
	for _, id := range c.ids {
		var list []uint64
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			// a follower applies what the leader committed a heartbeat later
			l := c.leader()
			if list = c.kvs[id].Values("k"); len(list) >= len(acks) && l != "" && c.rafts[id].AppliedIndex() >= c.rafts[l].CommitIndex() {
				break
			}
		}
		seen := map[uint64]int{}
		for _, v := range list {
			seen[v]++
		}
		for v, k := range seen {
			if k > 1 {
				t.Errorf("%s: value %d applied %d times", id, v, k)
			}
		}
		lost := 0
		for _, v := range acks {
			if seen[v] == 0 {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("%s: %d of %d acknowledged writes lost", id, lost, len(acks))
		}
	}
}

// writer appends 1, 2, 3, … to key k through the leader every 20ms,
// each with a 250ms timeout, and records what it saw.
type writer struct {
	c      *tcpCluster
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	log  []write
	acks []uint64
}

type write struct {
	sent, at time.Time // when it was sent and when it returned
	ok       bool
	by       string // the node that acknowledged it
}

func startWriter(c *tcpCluster) *writer {
	ctx, cancel := context.WithCancel(context.Background())
	w := &writer{c: c, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for v := uint64(1); ctx.Err() == nil; v++ {
			sent, l, err := time.Now(), c.leader(), error(nil)
			if l == "" {
				err = fmt.Errorf("no leader")
			} else {
				err = c.rafts[l].Apply(encode(opAppend, "k", v), 250*time.Millisecond).Error()
			}
			w.mu.Lock()
			w.log = append(w.log, write{sent: sent, at: time.Now(), ok: err == nil, by: l})
			if err == nil {
				w.acks = append(w.acks, v)
			}
			w.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return w
}

// stop ends the writer and returns the values acknowledged.
func (w *writer) stop() []uint64 {
	w.cancel()
	<-w.done
	return w.acks
}

// outage is the writer's own time to recover after from, among the writes
// that returned in [from, to): from from to the first acknowledged write
// after the last that failed; 0 when none failed.
func (w *writer) outage(from, to time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	last := -1
	for i, x := range w.log {
		if !x.ok && !x.at.Before(from) && x.at.Before(to) {
			last = i
		}
	}
	if last < 0 {
		return 0
	}
	for _, x := range w.log[last+1:] {
		if x.ok {
			return x.at.Sub(from)
		}
	}
	return to.Sub(from)
}

// ackedBy lists the nodes that acknowledged writes sent and returned in
// [from, to): a write sent before from may have been committed before it,
// and acknowledged a moment after.
func (w *writer) ackedBy(from, to time.Time) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var by []string
	for _, x := range w.log {
		if x.ok && !x.sent.Before(from) && x.at.Before(to) && !slices.Contains(by, x.by) {
			by = append(by, x.by)
		}
	}
	return by
}
