// Package migration is the code of docs/migrating-from-ares-arena.md: every
// Go snippet of the guide is a piece of this file, line for line, and the
// package's test checks that and runs the code against the fake cluster. The
// Old… types stand for what an ares_arena user already has.
package migration

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ares-arena/arena/arenahttp"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/regression"
	"github.com/ares-arena/arena/scenario"
)

// OldAgentInfo stands for ares_runtime.AgentInfo.
type OldAgentInfo struct {
	ID, Type, Status string
	Restarts         int
}

// OldRuntime is the RuntimeProvider an ares_arena user implemented.
type OldRuntime interface {
	StopAgent(ctx context.Context, agentID string) error
	ListAgents() []OldAgentInfo
	PauseAgent(ctx context.Context, agentID string) error
	ResumeAgent(ctx context.Context, agentID string) error
	SlowAgent(ctx context.Context, agentID string, delay time.Duration) error
	PartitionNetwork(ctx context.Context, agentID string) error
	ToolTimeout(ctx context.Context, agentID string, timeout time.Duration) error
	CorruptMemory(ctx context.Context, agentID string) error
	DisconnectMCP(ctx context.Context, agentID string) error
	InjectLLMFailure(ctx context.Context, agentID string, errType string) error
}

// OldDAG is the DAGProvider an ares_arena user implemented.
type OldDAG interface {
	ListNodes(ctx context.Context) []string
	ListEdges(ctx context.Context) [][2]string
	RemoveNode(ctx context.Context, id string) error
	RemoveEdge(ctx context.Context, from, to string) error
}

// Runtime is an ares_arena runtime for arena: the calls that land faults
// are promoted from the embedded value; ListAgents and InjectLLMFailure are
// adapted. Its landing methods return only an error: fault.NewInjectorFor
// still lands through them (a deprecated shape), and never lifts what they
// land, as ares_arena never did.
type Runtime struct{ OldRuntime }

var _ fault.AgentLister = Runtime{}

// ListAgents takes a context and may fail: listing a real runtime is I/O.
func (r Runtime) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var agents []fault.AgentInfo
	for _, a := range r.OldRuntime.ListAgents() {
		agents = append(agents, fault.AgentInfo{ID: a.ID, Type: a.Type, Status: fault.AgentStatus(a.Status), Restarts: a.Restarts})
	}
	return agents, nil
}

// InjectLLMFailure gets a fault.LLMErrorType, validated before the call.
func (r Runtime) InjectLLMFailure(ctx context.Context, agentID string, errType fault.LLMErrorType) error {
	return r.OldRuntime.InjectLLMFailure(ctx, agentID, string(errType))
}

// DAG is an ares_arena DAG as a fault.DAGProvider.
type DAG struct{ OldDAG }

var _ fault.DAGProvider = DAG{}

// ListNodes may fail.
func (d DAG) ListNodes(ctx context.Context) ([]string, error) {
	return d.OldDAG.ListNodes(ctx), ctx.Err()
}

// ListEdges may fail, and names each end of an edge.
func (d DAG) ListEdges(ctx context.Context) ([]fault.Edge, error) {
	var edges []fault.Edge
	for _, e := range d.OldDAG.ListEdges(ctx) {
		edges = append(edges, fault.Edge{Source: e[0], Target: e[1]})
	}
	return edges, ctx.Err()
}

// Pauses is a runtime that lands pauses and nothing else: it implements
// fault.AgentLister and fault.Pauser, not the other capabilities of
// RuntimeProvider, which it would otherwise have had to stub.
type Pauses struct{ Old OldRuntime }

var (
	_ fault.AgentLister  = Pauses{}
	_ fault.Pauser       = Pauses{}
	_ fault.ScopeRefuser = Pauses{}
)

// ListAgents is Runtime's: every runtime lists its agents.
func (p Pauses) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
	return Runtime{p.Old}.ListAgents(ctx)
}

// PauseAgent freezes an agent, and hands back how to thaw it: arena lifts
// a pause with a `duration` through it. The lift resumes the agent only if
// it is still paused: the system may have resumed it already, and lifting
// a fault that is no longer in place must succeed.
func (p Pauses) PauseAgent(ctx context.Context, agentID string) (fault.Lift, error) {
	if err := p.Old.PauseAgent(ctx, agentID); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		if !p.paused(ctx, agentID) {
			return nil
		}
		return p.Old.ResumeAgent(ctx, agentID)
	}, nil
}

// ResumeAgent thaws it (resume_agent).
func (p Pauses) ResumeAgent(ctx context.Context, agentID string) error {
	return p.Old.ResumeAgent(ctx, agentID)
}

func (p Pauses) paused(ctx context.Context, agentID string) bool {
	agents, _ := p.ListAgents(ctx)
	for _, a := range agents {
		if a.ID == agentID {
			return a.Status == fault.StatusPaused
		}
	}
	return false
}

// RefusedScopes says, in one place, why Pauses refuses the built-in types
// it does not land (fault.ScopeRefuser): validation and the HTTP API give
// the reason. It refuses every scope but the pauses it lands, so a type a
// later arena adds is refused with the same reason. A runtime that reaches
// a scope names the types it refuses there instead (fault.Refuser), and
// arenatest.TestRuntime fails it while one is left undecided.
func (p Pauses) RefusedScopes() map[fault.Scope]string {
	scopes := map[fault.Scope]string{}
	for _, sc := range fault.Scopes() {
		scopes[sc] = "this system can only pause and resume its agents"
	}
	return scopes
}

// BeforeLift is a runtime written for arena before landing handed back its
// lift: its landing methods return only an error, and one LiftFault undoes
// any timed fault by type and agent.
type BeforeLift interface {
	ListAgents(ctx context.Context) ([]fault.AgentInfo, error)
	SlowAgent(ctx context.Context, agentID string, delay time.Duration) error
	LiftFault(ctx context.Context, kind fault.Type, agentID string) error
}

// Lifted is such a runtime in the current shape: each landing hands back
// its own undo, which was a case of LiftFault's switch. Move each case next
// to its landing; when none is left, LiftFault goes.
type Lifted struct{ Old BeforeLift }

var _ fault.Slower = Lifted{}

// ListAgents is unchanged.
func (l Lifted) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
	return l.Old.ListAgents(ctx)
}

// SlowAgent lands as before, and hands back its lift.
func (l Lifted) SlowAgent(ctx context.Context, agentID string, delay time.Duration) (fault.Lift, error) {
	if err := l.Old.SlowAgent(ctx, agentID, delay); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { return l.Old.LiftFault(ctx, fault.SlowAgent, agentID) }, nil
}

// Restart is a fault type of your own, which ares_arena had no way to add:
// restart_agent, landed by your code.
func Restart(restart func(ctx context.Context, agentID string) error) fault.Spec {
	return fault.Spec{
		Type:   "restart_agent", // its name in YAML, HTTP (POST /arena/fault/restart_agent), events
		Doc:    "Restarts an agent gracefully.",
		Target: fault.TargetAgent, // target_id: an agent, "random" or "type:<agent type>"
		Inject: func(ctx context.Context, a fault.Action, _ fault.Params) error {
			return restart(ctx, a.TargetID) // a selector is resolved to an agent by now
		},
		Fix:        "target a running agent",                      // flight recorder: when it fails to land
		Priority:   5,                                             // evolution bridge: when the system does not heal it
		Suggestion: "drain an agent's tasks before restarting it", // and what it proposes
	}
}

// NewPartialService is NewService over a runtime that lands only some
// faults, with a fault of your own registered on its injector (there is no
// global registry).
func NewPartialService(rt OldRuntime, restart func(ctx context.Context, agentID string) error, probe fault.Probe, opts ...engine.Option) *engine.Service {
	in := fault.NewInjectorFor(Pauses{rt}, fault.WithFault(Restart(restart)))
	return engine.NewService(in, events.NewMemoryStore(), nil, append([]engine.Option{engine.WithProbe(probe)}, opts...)...)
}

// RunOwnScenario loads a scenario that may use your fault types, and
// refuses, before anything lands, one with a fault the runtime cannot land.
func RunOwnScenario(ctx context.Context, svc *engine.Service, data []byte) (*scenario.Report, error) {
	sc, err := scenario.Load(data, "my-scenario.yaml", svc.Injector().FaultTypes()...) // your types are known to YAML
	if err != nil {
		return nil, err
	}
	if err := scenario.ValidateFor(svc, sc); err != nil { // "actions[2].action.type: mcp_disconnect is not supported by this runtime …"
		return nil, err
	}
	return scenario.Run(ctx, svc, sc)
}

// Bridges are what ares_arena attached with setters, now given to
// NewService. Any of them may be nil.
type Bridges struct {
	Flight    engine.FlightRecorder       // was SetFlightBridge(NewFlightBridge(recorder))
	Evolution engine.EvolutionCoordinator // was SetEvolutionBridge(NewEvolutionBridge(coordinator))
	Evidence  engine.EvidenceStore        // was NewService's evStore
	Metrics   prometheus.Registerer       // was the service's own MetricsCollector
}

// NewService builds the service over the old runtime and DAG. probe says
// whether the system is healthy now: without it arena cannot see recovery.
func NewService(rt OldRuntime, dag OldDAG, probe fault.Probe, b Bridges, opts ...engine.Option) (*engine.Service, *events.MemoryStore) {
	store := events.NewMemoryStore() // was an ares_events.EventStore
	opts = append([]engine.Option{
		engine.WithProbe(probe),
		engine.WithFlightRecorder(b.Flight),
		engine.WithEvolution(b.Evolution),
		engine.WithRegisterer(b.Metrics),
	}, opts...)
	in := fault.NewInjectorFor(Runtime{rt}, fault.WithDAG(DAG{dag})) // Runtime has the old shape: NewInjector(rt, dag) takes the current one
	return engine.NewService(in, store, b.Evidence, opts...), store
}

// ActionsOf is what MetricsCollector.RecordActionResult counted: Execute
// records every action itself, in Stats and in the Prometheus collectors.
func ActionsOf(svc *engine.Service, t fault.Type) (succeeded, failed int) {
	st := svc.Stats().ByType[t]
	return st.Succeeded, st.Failed
}

// RunScenario loads, checks and runs a YAML scenario.
func RunScenario(ctx context.Context, svc *engine.Service, data []byte) (*scenario.Report, error) {
	sc, err := scenario.Load(data, "my-scenario.yaml") // validates; every problem with line:column
	if err != nil {
		return nil, err
	}
	if err := scenario.Validate(sc); err != nil { // for a scenario built or changed in code
		return nil, err
	}
	rep, err := scenario.Run(ctx, svc, sc) // a *Scenario now
	if err != nil {
		return nil, err
	}
	if !rep.OK() { // was !report.Verified
		return rep, fmt.Errorf("scenario %s failed its gate: %s", sc.Name, strings.Join(rep.Gate.Reasons, "; "))
	}
	return rep, nil
}

// Survive runs an hour of seeded chaos (seconds, on a virtual clock).
func Survive(ctx context.Context, svc *engine.Service) (*engine.SurvivalReport, error) {
	return svc.RunSurvival(ctx, engine.SurvivalConfig{
		Duration: time.Hour,
		Interval: 10 * time.Second,
		Seed:     7, // 0 draws one; the report has it, to replay the run
	})
}

// StopIfFailing stops the running survival run once its live score has
// fallen below min, and returns its report; nil while it is doing well.
func StopIfFailing(svc *engine.Service, min engine.Grade) (*engine.SurvivalReport, error) {
	st := svc.SurvivalStatus()
	if !st.Running || !st.Score.Measured || st.Score.Grade.AtLeast(min) {
		return nil, nil
	}
	return svc.StopSurvival()
}

// Scorer adapts an ares_arena scorer, which was given the strategy, to
// arena's, which is given a regression.Trial (strategy, arm, run index, seed).
func Scorer(old func(strategy any) (float64, error)) regression.Scorer {
	return regression.ScorerFunc(func(input any) (float64, error) {
		return old(input.(regression.Trial).Strategy)
	})
}

// Compare is ares_arena's adaptive A/B test in arena's terms.
func Compare(ctx context.Context, svc *engine.Service, scorer regression.Scorer, oldStrategy, newStrategy any) (bool, error) {
	rt := regression.NewTester(svc, scorer) // returns no error; svc may be nil
	res, err := rt.Run(ctx, regression.Config{
		Baseline:  oldStrategy,               // was OldStrategy
		Candidate: newStrategy,               // was NewStrategy
		Mode:      regression.ModeSequential, // was AdaptiveBatchSize > 0
		Batch:     5,                         // was AdaptiveBatchSize
		MinRuns:   10,                        // was MinAdaptiveRuns
		MaxRuns:   50,                        // was MaxAdaptiveRuns
		Alpha:     0.05,                      // was Confidence
	})
	if err != nil {
		return false, err
	}
	return res.Verdict == regression.VerdictBetter, nil // was Confident && NewBetter
}

// Serve puts the HTTP API on mux. Close the handler on shutdown: it ends
// the event streams and a survival run it started.
func Serve(mux *http.ServeMux, svc *engine.Service, store *events.MemoryStore, reg *prometheus.Registry, fr engine.FlightRecorder, key string) *arenahttp.Handler {
	h := arenahttp.NewHandler(svc,
		arenahttp.WithAPIKey(key),        // was SetAPIKey, which remains for rotating it
		arenahttp.WithFlightRecorder(fr), // was SetFlightRecorder
		arenahttp.WithEvents(store),      // GET /arena/stream
		arenahttp.WithGatherer(reg))      // GET /metrics
	h.RegisterRoutes(mux) // every route has its own recover, auth and body limit
	return h
}

// Protect wraps your own routes as RecoverMiddleware wrapped the mux.
func Protect(mux *http.ServeMux, yours http.Handler) {
	mux.Handle("/", arenahttp.RecoverMiddleware(yours))
}
