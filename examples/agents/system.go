package agents

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ares-arena/arena/agentwire"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/sim"
)

// Config is an agent system: its workers and how many users ask it.
type Config struct {
	Workers []WorkerConfig
	Users   int
	Think   time.Duration // the model's time per answer
}

// DefaultConfig is three workers (OpenAI; Anthropic, streaming; OpenAI,
// streaming), two users, a model that thinks 300ms.
func DefaultConfig() Config {
	return Config{
		Workers: []WorkerConfig{
			{Name: "worker-1", Provider: agentwire.OpenAI},
			{Name: "worker-2", Provider: agentwire.Anthropic, Stream: true},
			{Name: "worker-3", Provider: agentwire.OpenAI, Stream: true},
		},
		Users: 2, Think: 300 * time.Millisecond,
	}
}

// With returns c with flaws planted in every worker.
func (c Config) With(f Flaws) Config {
	c.Workers = append([]WorkerConfig(nil), c.Workers...)
	for i := range c.Workers {
		c.Workers[i].Flaws = f
	}
	return c
}

// System is an agent system running on a sim world: the orchestrator
// (type leader), the workers, the model, the ledger and the ticket store
// (MCP servers, type tool), and the users (node "users", which no fault
// reaches).
type System struct {
	Store   *Store
	Runtime agentwire.World

	users *users
	calls *modelCalls
	stop  context.CancelFunc
	wg    sync.WaitGroup
}

// Start builds the system on w and starts the users.
func Start(w *sim.World, cfg Config) (*System, error) {
	a := agentwire.New()
	s := &System{Store: NewStore(), Runtime: agentwire.World{World: w, Agents: a, Clients: []string{"users"}},
		calls: &modelCalls{n: map[string]int{}}}
	model := &Model{Think: cfg.Think}
	var workers []string
	for _, wc := range cfg.Workers {
		workers = append(workers, wc.Name)
	}
	add := func(name, typ string, h func(n *sim.Node) (http.Handler, func())) error {
		_, err := w.AddNode(name, sim.NodeConfig{Type: typ, RestartAfter: time.Second, Stop: stopHTTP,
			Start: func(ctx context.Context, n *sim.Node) error {
				return startHTTP(func() (http.Handler, func()) { return h(n) })(ctx, n)
			}})
		return err
	}
	err := add("model", "model", func(*sim.Node) (http.Handler, func()) { return model, nil })
	if err == nil {
		err = add("ledger", "tool", func(*sim.Node) (http.Handler, func()) { return mcpServe(LedgerServer(s.Store)) })
	}
	if err == nil {
		err = add("tickets", "tool", func(*sim.Node) (http.Handler, func()) { return mcpServe(TicketServer(s.Store)) })
	}
	if err == nil {
		err = add("orchestrator", "leader", func(n *sim.Node) (http.Handler, func()) {
			return &orchestrator{workers: workers, client: &http.Client{Transport: n.HTTPTransport()}}, nil
		})
	}
	for _, wc := range cfg.Workers {
		if err != nil {
			break
		}
		err = add(wc.Name, "worker", func(n *sim.Node) (http.Handler, func()) {
			wk := newWorker(wc, s.calls.counting(a.LLM(wc.Name, wc.Provider, n.HTTPTransport())), a.MCP(wc.Name, n.HTTPTransport()))
			return wk, wk.close
		})
	}
	if err != nil {
		return nil, err
	}
	node, err := w.AddNode("users", sim.NodeConfig{Type: "client"})
	if err != nil {
		return nil, err
	}
	s.users = &users{client: &http.Client{Transport: node.HTTPTransport()}}
	ctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	for i := range cfg.Users {
		rng := rand.New(rand.NewPCG(node.Rand().Uint64(), uint64(i)))
		s.wg.Go(func() { s.users.run(ctx, fmt.Sprintf("u%d", i+1), rng) })
	}
	return s, nil
}

// Stop ends the users and waits for them.
func (s *System) Stop() {
	s.stop()
	s.wg.Wait()
}

// Probe is the users' view: healthy while at most MaxFailures of their
// attempts in the last Window failed or took longer than MaxLatency.
func (s *System) Probe(ctx context.Context) error { return s.users.probe(ctx) }

// Tasks returns the tasks the users finished (done, failed or lost).
func (s *System) Tasks() []Task {
	return s.users.all()
}

// ModelCalls returns the model calls of a finished task, the SDKs' retries
// included: all its attempts', and the most one attempt made.
func (s *System) ModelCalls(t Task) (sum, most int) { return s.calls.of(t.ID, t.Attempts) }

// Options are arenatest's options for the system: its runtime (the sim
// world with agentwire's faults), probe, checks and agentwire's fault types
// (Faults).
func (s *System) Options() []arenatest.Option {
	return []arenatest.Option{arenatest.WithRuntime(s.Runtime), arenatest.WithProbe(s.Probe),
		arenatest.WithChecks(s.Checks()...), arenatest.WithFaults(s.Faults()...)}
}

// Faults are agentwire's fault types, tool_lie's tool "pay" by default:
// when every tool of the ledger lies alike (pay and receipt), no agent
// without another source can see through it, and the check of results
// says so; a scenario that wants that names tool: "" itself.
func (s *System) Faults() []fault.Spec {
	specs := s.Runtime.Faults()
	for i := range specs {
		if specs[i].Type != agentwire.ActionToolLie {
			continue
		}
		specs[i].Metadata = slices.Clone(specs[i].Metadata)
		for k := range specs[i].Metadata {
			if specs[i].Metadata[k].Name == "tool" {
				specs[i].Metadata[k].Default = "pay"
			}
		}
	}
	return specs
}

// Harness is cfg as an arenatest.System: built afresh in each simulated
// run (arenatest.SimulateRun, SimulateSurvive, shrinking); the system it
// built last is handed to seen, when given.
func Harness(cfg Config, seen func(*System)) arenatest.System {
	return func(t *testing.T, w *sim.World) []arenatest.Option {
		s, err := Start(w, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
		if seen != nil {
			seen(s)
		}
		return s.Options()
	}
}
