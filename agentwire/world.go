package agentwire

import (
	"maps"
	"slices"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/sim"
)

// World is the runtime of an agent system in simulated time: a sim.World
// (its nodes are the agents: kills, pauses, partitions, latency) whose
// agents' model and MCP calls go through Agents (llm_failure,
// mcp_disconnect, tool_timeout, slow_agent, and this package's types).
// Give it to arenatest.WithRuntime, with WithFaults(w.Faults()...).
type World struct {
	*sim.World
	*Agents
	// Clients are the nodes the test's own clients run on (its users, its
	// probe): selectors and survival never pick them (a fault that names
	// one by its ID still lands, as fault.Reacher says).
	Clients []string
}

var _ fault.Reacher = World{}

// Reaches is Agents.Reaches, and false for the Clients.
func (w World) Reaches(t fault.Type, agentID string) bool {
	return !slices.Contains(w.Clients, agentID) && w.Agents.Reaches(t, agentID)
}

// Refusals are the world's, less slow_agent: Agents lands it on the
// agent's calls.
func (w World) Refusals() map[fault.Type]string {
	r := maps.Clone(w.World.Refusals())
	delete(r, fault.SlowAgent)
	return r
}
