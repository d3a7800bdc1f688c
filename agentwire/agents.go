package agentwire

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/ctxtime"
)

var (
	_ fault.LLMFailer       = (*Agents)(nil)
	_ fault.MCPDisconnecter = (*Agents)(nil)
	_ fault.ToolTimeouter   = (*Agents)(nil)
	_ fault.Slower          = (*Agents)(nil)
)

// DefaultMCPReconnect is how long an MCP link dropped by mcp_disconnect
// stays down when arena does not lift it sooner: as the fakes' and
// agentd's MCP sessions, it comes back after a second.
const DefaultMCPReconnect = time.Second

// Agents holds the wire faults of a system's agents: each agent's model
// clients (LLM) and MCP clients (MCP) go through its wrappers, and the
// faults landed on the agent act on those calls. It is the part of a
// runtime that lands llm_failure, mcp_disconnect, tool_timeout and
// slow_agent (a delay on each of the agent's calls), and, through Faults,
// the fault types of this package. The agent IDs are the runtime's (a
// sim.World's node names); World puts the two together.
type Agents struct {
	reconnect time.Duration

	mu     sync.Mutex
	agents map[string]*agentState
	seq    uint64 // faults landed, answers made up
	lifts  map[liftKey][]fault.Lift
}

// Option configures Agents.
type Option func(*Agents)

// WithMCPReconnect sets how long a dropped MCP link stays down unless
// lifted first (DefaultMCPReconnect); negative: until lifted.
func WithMCPReconnect(d time.Duration) Option { return func(a *Agents) { a.reconnect = d } }

// New returns Agents with no agent yet: LLM, MCP and MCPConn add them.
func New(opts ...Option) *Agents {
	a := &Agents{reconnect: DefaultMCPReconnect, agents: map[string]*agentState{}, lifts: map[liftKey][]fault.Lift{}}
	for _, o := range opts {
		o(a)
	}
	return a
}

type agentState struct {
	llm  []*llmFault
	slow map[uint64]time.Duration
	mcp  mcpState
	hits map[string]int
	// llmClients and mcpClients count the transports made for the agent
	// (LLM, MCP): a fault lands on an agent with one of its kind.
	llmClients, mcpClients int
}

// agent returns id's state, made on first use.
func (a *Agents) agent(id string) *agentState {
	s := a.agents[id]
	if s == nil {
		s = &agentState{slow: map[uint64]time.Duration{}, hits: map[string]int{}}
		s.mcp.init()
		a.agents[id] = s
	}
	return s
}

// with runs f on id's state (made on first use) under a.mu.
func (a *Agents) with(id string, f func(s *agentState)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f(a.agent(id))
}

// client is the kind of client a fault acts on.
type client int

const (
	modelClient client = iota // LLM
	mcpClient                 // MCP
	anyClient                 // either
)

// wired returns the state of agent id when it has a client of the kind
// need, or why not.
func (a *Agents) wired(id string, need client) (*agentState, error) {
	s := a.agents[id]
	switch {
	case s == nil:
		return nil, fmt.Errorf("agentwire: %w %q: it has no model or MCP client here (Agents.LLM, Agents.MCP, Agents.MCPConn)", fault.ErrNoAgent, id)
	case need == anyClient && s.llmClients+s.mcpClients > 0, need == modelClient && s.llmClients > 0, need == mcpClient && s.mcpClients > 0:
		return s, nil
	case need == modelClient:
		return nil, fmt.Errorf("agentwire: agent %q has no model client here (Agents.LLM): %w", id, fault.ErrCannotLand)
	}
	return nil, fmt.Errorf("agentwire: agent %q has no MCP client here (Agents.MCP, Agents.MCPConn): %w", id, fault.ErrCannotLand)
}

// land lands a fault on agent id, which must have a client of the kind
// need (and invalid, the fault's validation, be nil): do changes the
// agent's state, under a.mu, and returns what undoes it, which the Lift
// runs at most once.
func (a *Agents) land(ctx context.Context, id string, need client, invalid error, do func(s *agentState) (undo func())) (fault.Lift, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if invalid != nil {
		return nil, invalid
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.wired(id, need)
	if err != nil {
		return nil, err
	}
	return a.once(do(s)), nil
}

// LLM returns the RoundTripper for agent's client of provider's API:
// base (http.DefaultTransport when nil) under the agent's LLM faults.
// Give it to the SDK's client (option.WithHTTPClient).
func (a *Agents) LLM(agent string, p Provider, base http.RoundTripper) http.RoundTripper {
	if !p.valid() {
		panic(fmt.Sprintf("agentwire: LLM(%q, %q): provider: want openai or anthropic", agent, p))
	}
	a.with(agent, func(s *agentState) { s.llmClients++ })
	return llmTransport{a: a, agent: agent, provider: p, base: orDefault(base)}
}

// MCP returns the RoundTripper for agent's MCP client over streamable HTTP:
// base (http.DefaultTransport when nil) under the agent's MCP and tool
// faults. Give it to mcp.StreamableClientTransport's HTTPClient.
func (a *Agents) MCP(agent string, base http.RoundTripper) http.RoundTripper {
	a.with(agent, func(s *agentState) { s.mcpClients++ })
	return mcpTransport{a: a, agent: agent, base: orDefault(base)}
}

func orDefault(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		return http.DefaultTransport
	}
	return rt
}

// Hits counts the calls of agent that faults acted on, by what they got
// ("llm:rate_limit", "mcp:disconnect", "tool:timeout", …).
func (a *Agents) Hits(agent string) map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]int{}
	if s := a.agents[agent]; s != nil {
		for k, v := range s.hits {
			out[k] = v
		}
	}
	return out
}

// InjectLLMFailure makes every model call of agentID fail with errType,
// in the shape of the client's provider, until lifted: llm_failure.
func (a *Agents) InjectLLMFailure(ctx context.Context, agentID string, errType fault.LLMErrorType) (fault.Lift, error) {
	return a.InjectLLM(ctx, agentID, LLMFault{Error: ErrorKind(errType)})
}

// InjectLLM lands f on agentID's model calls until lifted. A later fault
// is consulted first.
func (a *Agents) InjectLLM(ctx context.Context, agentID string, f LLMFault) (fault.Lift, error) {
	return a.land(ctx, agentID, modelClient, f.validate(), func(s *agentState) func() {
		lf := &llmFault{LLMFault: f.withDefaults(), lifted: make(chan struct{})}
		s.llm = append(s.llm, lf)
		return func() {
			s.llm = deleteFault(s.llm, lf)
			close(lf.lifted)
		}
	})
}

func deleteFault[T comparable](fs []T, f T) []T {
	for i, g := range fs {
		if g == f {
			return append(fs[:i:i], fs[i+1:]...)
		}
	}
	return fs
}

// once makes undo, run under a.mu, a fault.Lift that undoes at most once.
func (a *Agents) once(undo func()) fault.Lift {
	var o sync.Once
	return func(context.Context) error {
		o.Do(func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			undo()
		})
		return nil
	}
}

// llmFaultFor picks the fault that takes a call of agent's provider client
// to path, the latest first, and numbers the answer.
func (a *Agents) llmFaultFor(agent string, p Provider, path string) (*llmFault, uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.agents[agent]
	if s == nil {
		return nil, 0
	}
	for i := len(s.llm) - 1; i >= 0; i-- {
		if f := s.llm[i]; f.matches(p, path) && f.hits() {
			a.seq++
			s.hits["llm:"+string(f.Error)]++
			return f, a.seq
		}
	}
	return nil, 0
}

// SlowAgent adds delay to each model and MCP call of agentID, before it
// leaves, until lifted: slow_agent on code that cannot be slowed from
// outside, through the calls it makes.
func (a *Agents) SlowAgent(ctx context.Context, agentID string, delay time.Duration) (fault.Lift, error) {
	return a.land(ctx, agentID, anyClient, nil, func(s *agentState) func() {
		a.seq++
		seq := a.seq
		s.slow[seq] = delay
		return func() { delete(s.slow, seq) }
	})
}

// slowdown waits out the agent's slow_agent delays, or until ctx ends.
func (a *Agents) slowdown(ctx context.Context, agent string) error {
	return ctxtime.Sleep(ctx, a.slowDelay(agent))
}

// slowDelay is the agent's slow_agent delay for one call now (counted as
// a hit when there is one).
func (a *Agents) slowDelay(agent string) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	var d time.Duration
	if s := a.agents[agent]; s != nil {
		for _, sd := range s.slow {
			d = min(d+sd, fault.MaxDelay)
		}
		if d > 0 {
			s.hits["slow"]++
		}
	}
	return d
}
