package agents_test

import (
	"net/http"
	"testing"
	"time"

	"example.com/arena-agents"
	"github.com/ares-arena/arena/agentwire"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/sim"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// The README's section "Testing an agent system", compiled and run
// (examples/raft-sim's TestREADMESnippets finds its code blocks here).

// clients are one worker's clients, through agentwire's transports over
// its sim node's.
func clients(node *sim.Node) (openai.Client, *mcp.StreamableClientTransport) {
	a := agentwire.New()
	llm := openai.NewClient(option.WithBaseURL("http://model/v1/"),
		option.WithHTTPClient(&http.Client{Transport: a.LLM("worker-1", agentwire.OpenAI, node.HTTPTransport())}))
	tools := &mcp.StreamableClientTransport{Endpoint: "http://ledger/mcp",
		HTTPClient: &http.Client{Transport: a.MCP("worker-1", node.HTTPTransport())}}
	return llm, tools
}

func agentSystem(t *testing.T, w *sim.World) []arenatest.Option {
	s, err := agents.Start(w, agents.DefaultConfig()) // builds the nodes above, starts the users
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return []arenatest.Option{arenatest.WithRuntime(s.Runtime), arenatest.WithProbe(s.Probe),
		arenatest.WithChecks(s.Checks()...), arenatest.WithFaults(s.Faults()...)}
}

func TestLLMBrownout(t *testing.T) {
	arenatest.SimulateRun(t, agentSystem, "llm-brownout", arenatest.WithShrinkOnFailure(time.Minute))
}
