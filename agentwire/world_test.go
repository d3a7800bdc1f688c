package agentwire_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/agentwire"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/sim"
)

// model answers 200; tools answers every MCP message with an empty result.
var (
	model = rt(func(r *http.Request) *http.Response { return answer(r, "application/json", `{"ok":true}`) })
	tools = rt(func(r *http.Request) *http.Response {
		return answer(r, "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
)

type rt func(*http.Request) *http.Response

func (f rt) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
	}
	return f(r), nil
}

func answer(r *http.Request, ctype, body string) *http.Response {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ctype}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}
}

// world is three workers with a model and an MCP client each, and their
// clients, for the effects.
type world struct {
	agentwire.World
	llm, mcp map[string]http.RoundTripper
}

func newWorld(t *testing.T) world {
	w := world{World: agentwire.World{World: sim.New(), Agents: agentwire.New()}, llm: map[string]http.RoundTripper{}, mcp: map[string]http.RoundTripper{}}
	t.Cleanup(func() { w.World.World.Close(context.Background()) })
	for _, name := range []string{"worker-1", "worker-2", "worker-3"} {
		if _, err := w.AddNode(name, sim.NodeConfig{Type: "worker", RestartAfter: -1}); err != nil {
			t.Fatal(err)
		}
		w.llm[name] = w.LLM(name, agentwire.Anthropic, model)
		w.mcp[name] = w.MCP(name, tools)
	}
	return w
}

// fails reports whether a call through c fails within 50ms.
func fails(c http.RoundTripper, body string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://x/v1/messages", strings.NewReader(body))
	res, err := c.RoundTrip(req)
	if err != nil {
		return true, nil
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	return err != nil || res.StatusCode != 200 || strings.Contains(string(b), `"error"`), nil
}

const toolCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay"}}`

// The world keeps the runtime contract, its agent faults seen through the
// agents' own clients.
func TestRuntimeConformance(t *testing.T) {
	arenatest.TestRuntime(t, newWorld,
		arenatest.Observe(fault.LLMFailure, func(_ context.Context, w world, a fault.Action) (bool, error) {
			return fails(w.llm[a.TargetID], `{}`)
		}),
		arenatest.Observe(fault.MCPDisconnect, func(_ context.Context, w world, a fault.Action) (bool, error) {
			return fails(w.mcp[a.TargetID], `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		}),
		arenatest.Observe(fault.ToolTimeout, func(_ context.Context, w world, a fault.Action) (bool, error) {
			return fails(w.mcp[a.TargetID], toolCall)
		}),
		arenatest.Observe(fault.SlowAgent, func(_ context.Context, w world, a fault.Action) (bool, error) {
			return fails(w.llm[a.TargetID], `{}`)
		}),
	)
}

func TestRuntimeDoc(t *testing.T) { arenatest.TestRuntimeDoc(t, "doc.go") }

// TestSelectorsReachClients: not:leader picks, for each fault type, only
// agents with the client it acts on; the model's and the tools' servers,
// nodes of the world too, are never picked.
func TestSelectorsReachClients(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := agentwire.World{World: sim.New(), Agents: agentwire.New()}
		defer w.World.Close(context.Background())
		for name, typ := range map[string]string{"orchestrator": fault.TypeLeader, "worker-1": "worker", "worker-2": "worker", "ledger": "tool", "model": "model"} {
			w.AddNode(name, sim.NodeConfig{Type: typ})
		}
		w.LLM("worker-1", agentwire.OpenAI, model)
		w.MCP("worker-1", tools)
		w.LLM("worker-2", agentwire.Anthropic, model)
		in := fault.NewInjectorFor(w, withFaults(w.Agents)...)
		picked := map[fault.Type][]string{}
		for seed := range uint64(40) {
			for _, typ := range []fault.Type{fault.LLMFailure, fault.MCPDisconnect, agentwire.ActionToolLie, fault.KillAgent} {
				a, _, err := in.Prepare(context.Background(), fault.Action{Type: typ, TargetID: "not:leader"}, rand.New(rand.NewPCG(seed, 1)))
				if err != nil {
					t.Fatalf("%s: %v", typ, err)
				}
				if !slices.Contains(picked[typ], a.TargetID) {
					picked[typ] = append(picked[typ], a.TargetID)
				}
			}
		}
		for typ, want := range map[fault.Type][]string{
			fault.LLMFailure: {"worker-1", "worker-2"}, fault.MCPDisconnect: {"worker-1"}, agentwire.ActionToolLie: {"worker-1"},
			fault.KillAgent: {"ledger", "model", "worker-1", "worker-2"},
		} {
			slices.Sort(picked[typ])
			if !slices.Equal(picked[typ], want) {
				t.Errorf("%s on not:leader picked %v, want %v", typ, picked[typ], want)
			}
		}
	})
}

// TestFaultTypes: the package's types parse, validate with named fields and
// land with their parameters.
func TestFaultTypes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := agentwire.World{World: sim.New(), Agents: agentwire.New()}
		defer w.World.Close(context.Background())
		w.AddNode("worker-1", sim.NodeConfig{Type: "worker"})
		llm := w.LLM("worker-1", agentwire.OpenAI, model)
		w.MCP("worker-1", tools)
		in := fault.NewInjectorFor(w, withFaults(w.Agents)...)
		for _, tc := range []struct {
			meta  map[string]any
			field string
		}{
			{map[string]any{"error": "explode"}, "metadata.error"},
			{map[string]any{"rate": 1.5}, "metadata.rate"},
			{map[string]any{"route": "v1"}, "metadata.route"},
			{map[string]any{"after_events": 1.5}, "metadata.after_events"},
			{map[string]any{"provider": "gemini"}, "metadata.provider"},
		} {
			err := in.Validate(fault.Action{Type: agentwire.ActionLLMError, TargetID: "worker-1", Metadata: tc.meta})
			var ve *fault.ValidationError
			if !errors.As(err, &ve) || ve.Field != tc.field {
				t.Errorf("llm_error %v: %v, want an error naming %s", tc.meta, err, tc.field)
			}
		}
		ctx := context.Background()
		act := fault.Action{ID: "a1", Type: agentwire.ActionLLMError, TargetID: "worker-1",
			Metadata: map[string]any{"error": "quota", "provider": "openai", "route": "/v1/chat"}}
		act, p, err := in.Prepare(ctx, act, nil)
		if err != nil {
			t.Fatal(err)
		}
		lift, err := in.Inject(ctx, act, p)
		if err != nil {
			t.Fatalf("llm_error: %v", err)
		}
		status := func(path string) int {
			req, _ := http.NewRequest(http.MethodPost, "http://x"+path, strings.NewReader(`{}`))
			r, err := llm.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			r.Body.Close()
			return r.StatusCode
		}
		if s1, s2 := status("/v1/chat/completions"), status("/v1/embeddings"); s1 != 429 || s2 != 200 {
			t.Errorf("under llm_error quota on /v1/chat: %d and %d, want 429 and 200", s1, s2)
		}
		if err := lift(ctx); err != nil {
			t.Fatal(err)
		}
		if s := status("/v1/chat/completions"); s != 200 {
			t.Errorf("lifted: %d", s)
		}
	})
}

func withFaults(a *agentwire.Agents) []fault.InjectorOption {
	var opts []fault.InjectorOption
	for _, s := range a.Faults() {
		opts = append(opts, fault.WithFault(s))
	}
	return opts
}
