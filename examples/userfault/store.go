// Package userfault is an example of a fault type of your own: a small
// replicated store (the "user's system") registers acme.disk_full on its arena
// injector, and the fault then works everywhere a built-in does: scenario
// YAML (strictly validated), the HTTP API (POST /arena/fault/acme.disk_full),
// survival mixes, arenatest, reports, the flight and evolution bridges and
// the JSON Schema printed for the service (schema.For).
//
// The store implements only fault.AgentLister of arena's runtime
// capabilities: it has no kill or pause, and needs none. Its tests are the
// example.
package userfault

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// Store is a toy replicated store: every write goes to every node, and a
// node whose disk is full refuses it. A compactor frees a full disk
// CompactAfter after it filled up: that is the system's own healing.
type Store struct {
	clock        clock.Clock
	compactAfter time.Duration

	mu    sync.Mutex
	nodes map[string]*node
}

type node struct {
	used      float64 // percent of the disk in use
	fullSince time.Time
}

// ErrDiskFull is what a write to a full node fails with.
var ErrDiskFull = errors.New("disk full")

// NewStore returns a store of three nodes on clock.
func NewStore(clk clock.Clock, compactAfter time.Duration) *Store {
	s := &Store{clock: clk, compactAfter: compactAfter, nodes: map[string]*node{}}
	for _, id := range []string{"node-1", "node-2", "node-3"} {
		s.nodes[id] = &node{used: 10}
	}
	return s
}

// Clock is the store's clock.
func (s *Store) Clock() clock.Clock { return s.clock }

var _ clock.VirtualSystem = (*Store)(nil)

// VirtualClock returns the store's clock when it is virtual (nil
// otherwise): the store has no goroutines or timers, and its compactor is
// a deadline read against the clock, so arena may run it in virtual time
// (clock.VirtualSystem; arenatest does).
func (s *Store) VirtualClock() *clock.Virtual {
	vc, _ := s.clock.(*clock.Virtual)
	return vc
}

// ListAgents lists the nodes: arena resolves random and type:storage from it.
func (s *Store) ListAgents(context.Context) ([]fault.AgentInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []fault.AgentInfo
	for _, id := range s.ids() {
		out = append(out, fault.AgentInfo{ID: id, Type: "storage", Status: fault.StatusRunning})
	}
	return out, nil
}

func (s *Store) ids() []string {
	ids := make([]string, 0, len(s.nodes))
	for id := range s.nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// FillDisk fills a node's disk to percent.
func (s *Store) FillDisk(id string, percent float64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.nodes[id]
	if !ok {
		return fmt.Errorf("no node %q", id)
	}
	if n.used < 100 && percent >= 100 {
		n.fullSince = s.clock.Now()
	}
	n.used = percent
	return nil
}

// FreeDisk empties a node's disk back to its baseline.
func (s *Store) FreeDisk(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.nodes[id]
	if !ok {
		return fmt.Errorf("no node %q", id)
	}
	n.used = 10
	return nil
}

// compact frees every disk that has been full for CompactAfter.
func (s *Store) compact() {
	now := s.clock.Now()
	for _, n := range s.nodes {
		if n.used >= 100 && now.Sub(n.fullSince) >= s.compactAfter {
			n.used = 10
		}
	}
}

// Put writes to every node.
func (s *Store) Put(context.Context, string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compact()
	for _, id := range s.ids() {
		if s.nodes[id].used >= 100 {
			return fmt.Errorf("%s: %w", id, ErrDiskFull)
		}
	}
	return nil
}

// Probe is healthy when a write succeeds.
func (s *Store) Probe(ctx context.Context) error { return s.Put(ctx, "probe") }

// DiskFull is the spec of the acme.disk_full fault on s: its target (a node),
// its metadata (percent, duration), how it lands and is lifted, and what
// the flight recorder and the evolution coordinator are told about it.
func DiskFull(s *Store) fault.Spec {
	return fault.Spec{
		Type:   "acme.disk_full",
		Doc:    "Fills a storage node's disk; writes fail until the compactor frees it or the fault is lifted.",
		Target: fault.TargetAgent,
		Metadata: []fault.MetaKey{
			{Name: "percent", Kind: fault.MetaKindNumber, Default: 100, Positive: true, Max: 100.0,
				Doc: "How full the disk is made, in percent (default 100: full)."},
			{Name: fault.MetaDuration, Kind: fault.MetaKindDuration,
				Doc: "The fault's lifetime: the disk is freed after this."},
		},
		Lifts: true,
		Inject: func(_ context.Context, a fault.Action, p fault.Params) error {
			return s.FillDisk(a.TargetID, p.Values["percent"].(float64))
		},
		Lift:       func(_ context.Context, a fault.Action) error { return s.FreeDisk(a.TargetID) },
		Category:   "storage",
		Fix:        "target a node of the store (node-1, node-2, node-3), or random",
		Priority:   7,
		Suggestion: "compact sooner, alert on disk usage, and route writes away from full nodes",
	}
}
