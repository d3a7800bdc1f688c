package agentwire

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/ares-arena/arena/fault"
)

// The fault types of this package (Faults): what the built-in types
// llm_failure, tool_timeout and mcp_disconnect do not say.
const (
	ActionLLMError       fault.Type = "llm_error"
	ActionToolError      fault.Type = "tool_error"
	ActionToolLie        fault.Type = "tool_lie"
	ActionMCPSessionLoss fault.Type = "mcp_session_loss"
)

// Reaches says which agents a fault type can land on: the model faults
// those with a model client (LLM), the MCP and tool faults those with an
// MCP client (MCP), slow_agent either; every other type, any agent. It
// makes Agents a fault.Reacher, so that not:leader picks a worker that
// calls a model, not the model's server.
func (a *Agents) Reaches(t fault.Type, agentID string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.agents[agentID]
	llm, mcp := s != nil && s.llmClients > 0, s != nil && s.mcpClients > 0
	switch t {
	case fault.LLMFailure, ActionLLMError:
		return llm
	case fault.MCPDisconnect, fault.ToolTimeout, ActionToolError, ActionToolLie, ActionMCPSessionLoss:
		return mcp
	case fault.SlowAgent:
		return llm || mcp
	}
	return true
}

// Faults returns the specs of this package's fault types, to register on
// the injector (arenatest.WithFaults, fault.WithFault):
//
//   - llm_error: an LLMFault with every parameter: error (any ErrorKind),
//     provider, route, rate, retry_after, delay, after_events.
//   - tool_error: tool calls answered isError (ToolError).
//   - tool_lie: tool results with a wrong value (ToolLie).
//   - mcp_session_loss: the MCP server forgets the agent's sessions
//     (ForgetSessions).
func (a *Agents) Faults() []fault.Spec {
	return []fault.Spec{a.llmErrorSpec(), a.toolSpec(ActionToolError), a.toolSpec(ActionToolLie), a.sessionLossSpec()}
}

var (
	metaRate = fault.MetaKey{Name: "rate", Kind: fault.MetaKindNumber, Default: 1.0, Positive: true, Max: 1.0,
		Doc: "The share of the matching calls hit, spread evenly (default 1: every call)."}
	metaLifetime = fault.MetaKey{Name: fault.MetaDuration, Kind: fault.MetaKindDuration,
		Doc: "The fault's lifetime: the engine lifts it after this."}
	metaTool = fault.MetaKey{Name: "tool", Kind: fault.MetaKindString, Default: "", MaxLen: 128,
		Doc: "The tool whose calls are hit (default: every tool)."}
)

func (a *Agents) llmErrorSpec() fault.Spec {
	kinds := make([]string, 0, len(ErrorKinds()))
	for _, k := range ErrorKinds() {
		kinds = append(kinds, string(k))
	}
	return fault.Spec{
		Type: ActionLLMError, Doc: "Answers an agent's model calls as its provider does when it fails: status, error body and headers, or a broken stream.",
		Target: fault.TargetAgent,
		Metadata: []fault.MetaKey{
			{Name: "error", Kind: fault.MetaKindString, Default: string(ErrRateLimit), Enum: kinds,
				Doc: "What the calls get (default rate_limit)."},
			{Name: "provider", Kind: fault.MetaKindString, Default: "any", Enum: []string{"any", string(OpenAI), string(Anthropic)},
				Doc: "The agent's clients of this provider only (default any)."},
			{Name: "route", Kind: fault.MetaKindString, Default: "/", Check: checkRoute,
				Doc: "The path the fault covers, with everything under it (default /: every path)."},
			metaRate,
			{Name: "retry_after", Kind: fault.MetaKindDuration, Positive: true, Default: DefaultRetryAfter, Max: fault.MaxDelay,
				Doc: "A rate_limit's retry-after (default 1s)."},
			{Name: "delay", Kind: fault.MetaKindDuration, Positive: true, Default: DefaultStreamDelay, Max: fault.MaxDelay,
				Doc: "A stream_stall's stall and a slow_first_token's wait (default 30s)."},
			{Name: "after_events", Kind: fault.MetaKindNumber, Default: float64(DefaultAfterEvents), Max: 1e6, Check: checkWhole,
				Doc: "The events of a stream let through before a stream fault acts (default 1)."},
			metaLifetime,
		},
		Lifts: true,
		Inject: func(ctx context.Context, act fault.Action, p fault.Params) error {
			f := LLMFault{
				Error: ErrorKind(p.Values["error"].(string)), Route: p.Values["route"].(string),
				Rate: p.Values["rate"].(float64), RetryAfter: p.Values["retry_after"].(time.Duration),
				Delay: p.Values["delay"].(time.Duration), AfterEvents: int(p.Values["after_events"].(float64)),
			}
			if pr := p.Values["provider"].(string); pr != "any" {
				f.Provider = Provider(pr)
			}
			return a.keep(act, func() (fault.Lift, error) { return a.InjectLLM(ctx, act.TargetID, f) })
		},
		Lift:     a.lift,
		Category: fault.CategoryRuntime, Fix: "target an agent whose model client goes through Agents.LLM",
		Priority: 4, Suggestion: "retry what the provider says is retryable, honour retry-after, bound the retries, and fall back to another model",
	}
}

func (a *Agents) toolSpec(t fault.Type) fault.Spec {
	s := fault.Spec{Type: t, Target: fault.TargetAgent, Lifts: true, Lift: a.lift,
		Category: fault.CategoryRuntime, Fix: "target an agent whose MCP client goes through Agents.MCP"}
	toolFault := func(p fault.Params) ToolFault {
		f := ToolFault{Rate: p.Values["rate"].(float64)}
		if tool := p.Values["tool"].(string); tool != "" {
			f.Tools = []string{tool}
		}
		return f
	}
	switch t {
	case ActionToolError:
		s.Doc = "Answers an agent's tool calls with a result whose isError is true, without running the tool."
		s.Metadata = []fault.MetaKey{metaTool, metaRate,
			{Name: "message", Kind: fault.MetaKindString, Default: DefaultToolError, MaxLen: 512, Doc: "The error's text."}, metaLifetime}
		s.Inject = func(ctx context.Context, act fault.Action, p fault.Params) error {
			f := toolFault(p)
			f.Kind, f.Message = ToolError, p.Values["message"].(string)
			return a.keep(act, func() (fault.Lift, error) { return a.FailTools(ctx, act.TargetID, f) })
		}
		s.Priority, s.Suggestion = 4, "read isError: a failed tool's text is not its answer; retry or say the task failed"
	case ActionToolLie:
		s.Doc = "Runs an agent's tool calls and changes the numbers of their results: a valid answer with a wrong value."
		s.Metadata = []fault.MetaKey{metaTool, metaRate,
			{Name: "field", Kind: fault.MetaKindString, Default: "", MaxLen: 128, Doc: "The key of the result whose numbers change (default: every number)."},
			{Name: "offset", Kind: fault.MetaKindNumber, Default: 1.0, Positive: true, Doc: "What is added to each number changed (default 1)."},
			metaLifetime}
		s.Inject = func(ctx context.Context, act fault.Action, p fault.Params) error {
			f := toolFault(p)
			f.Kind, f.Field, f.Offset = ToolLie, p.Values["field"].(string), p.Values["offset"].(float64)
			return a.keep(act, func() (fault.Lift, error) { return a.FailTools(ctx, act.TargetID, f) })
		}
		s.Priority, s.Suggestion = 5, "cross-check a tool's answer against another source before acting on it, or say it cannot be verified"
	}
	return s
}

func (a *Agents) sessionLossSpec() fault.Spec {
	return fault.Spec{
		Type: ActionMCPSessionLoss, Doc: "The agent's MCP servers forget its sessions, as after a restart: their next request gets 404 session not found.",
		Target: fault.TargetAgent,
		Inject: func(ctx context.Context, act fault.Action, _ fault.Params) error {
			return a.ForgetSessions(ctx, act.TargetID)
		},
		Category: fault.CategoryRuntime, Fix: "target an agent whose MCP client goes through Agents.MCP",
		Priority: 5, Suggestion: "on mcp.ErrSessionMissing, connect a new session and redo what was in flight, idempotently",
	}
}

type liftKey struct {
	t           fault.Type
	target, id  string
	createdNano int64
}

func keyOf(act fault.Action) liftKey {
	return liftKey{act.Type, act.TargetID, act.ID, act.CreatedAt.UnixNano()}
}

// keep lands a fault of this package's types and keeps its lift for Lift.
func (a *Agents) keep(act fault.Action, land func() (fault.Lift, error)) error {
	lift, err := land()
	if err != nil {
		return err
	}
	k := keyOf(act)
	a.mu.Lock()
	a.lifts[k] = append(a.lifts[k], lift)
	a.mu.Unlock()
	return nil
}

// lift is the Lift of this package's types: the lift kept for act.
func (a *Agents) lift(ctx context.Context, act fault.Action) error {
	k := keyOf(act)
	a.mu.Lock()
	ls := a.lifts[k]
	delete(a.lifts, k)
	a.mu.Unlock()
	var errs []error
	for _, l := range ls {
		errs = append(errs, l(ctx))
	}
	return errors.Join(errs...)
}

func checkRoute(v any) error {
	s := v.(string)
	if !strings.HasPrefix(s, "/") || strings.ContainsAny(s, " \t\r\n?#") {
		return errors.New(`want a path starting with "/", without spaces, query or fragment`)
	}
	return nil
}

func checkWhole(v any) error {
	if f := v.(float64); f != math.Trunc(f) {
		return errors.New("want a whole number")
	}
	return nil
}
