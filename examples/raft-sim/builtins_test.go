package raftsim

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	builtin "github.com/ares-arena/arena/scenarios"
	"github.com/ares-arena/arena/sim"
)

// onRaft is what a built-in scenario does on a 3-node raft cluster: it is
// refused before it starts (refused: the reason), or it runs, every step
// lands, every fault recovers and every check passes, and its gate (set
// for the fake cluster) holds except for the criteria in weak, each a real
// weakness of this system named beside it.
type onRaft struct {
	refused string
	weak    []string
}

var builtinsOnRaft = map[string]onRaft{
	// sim lands faults on nodes and their links, not in a node's code.
	"cascading-failure":  {refused: "actions[2].action.type: tool_timeout is not supported by this runtime: sim lands faults on nodes and their links, not inside a node's code"},
	"everything-at-once": {refused: "actions[1].action.type: memory_corrupt is not supported by this runtime: sim lands faults on nodes and their links"},
	"llm-brownout":       {refused: "actions[0].action.type: llm_failure is not supported by this runtime"},
	"mcp-flap":           {refused: "actions[0].action.type: mcp_disconnect is not supported by this runtime"},
	"memory-corruption":  {refused: "actions[0].action.type: memory_corrupt is not supported by this runtime"},
	"slow-tools":         {refused: "actions[0].action.type: tool_timeout is not supported by this runtime"},
	"dag-surgery":        {refused: `scenario "dag-surgery": actions[0]: remove_edge: no DAG provider: sim has no task DAG`},
	// Raft has a leader and followers, no orchestrator: refused once the
	// warmup is over, before the first fault, naming what the system lists.
	"orchestrator-loss": {refused: `actions[0].action.type: step "kill-orchestrator": kill_orchestrator hits the orchestrator, and no agent holds that role at the end of the warmup (5s) (the runtime lists raft-1 (`},

	// Raft elects a successor after an election timeout (1s, randomised up
	// to 2s) and the clients find it after their own 1s timeout: a leader's
	// loss costs 1.5-2.5s, above the fake cluster's 2s bound.
	"leader-failover": {weak: []string{"max_mttr"}},
	// Six kills 1.5s apart, each node back 2s after: two of the three
	// voters are often down at once, and a 3-node raft has no quorum then.
	"rolling-kills": {weak: []string{"min_grade", "max_mttr"}},
	// 1.5s of latency on the leader's links is past raft's 1s heartbeat
	// timeout: the followers elect another, but the old leader's clients
	// wait on it until the latency is lifted (8s).
	"slow-network": {weak: []string{"max_mttr", "min_grade"}},
	// Two followers cut off lose the leader its quorum until one is
	// lifted; the cut-off leader is replaced by election.
	"network-split": {weak: []string{"max_mttr", "min_grade"}},
	"flaky-network": {weak: []string{"max_mttr"}},
}

// TestBuiltinsOnRaft plays every built-in scenario against a 3-node raft
// cluster in simulated time (issue 35): each is refused before it starts
// with its reason, or runs and lands every fault on raft's own nodes (the
// built-ins name roles and selectors, not the fake cluster's agents).
func TestBuiltinsOnRaft(t *testing.T) {
	for _, name := range builtin.Names() {
		want, ok := builtinsOnRaft[name]
		if !ok {
			t.Errorf("%s: no entry in builtinsOnRaft: run it and say what it does on raft", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			arenatest.Simulate(t, func(t *testing.T, w *sim.World) {
				_, wl := start(t, w, 3)
				defer wl.Stop()
				sc, err := builtin.Load(name)
				if err != nil {
					t.Fatal(err)
				}
				sc.Config.Seed = 7
				// The workload's client node is the test's, not the system
				// under test: no selector may pick it.
				in := fault.NewInjectorFor(w, fault.WithoutAgents("client"))
				svc := engine.NewService(in, events.NewMemoryStore(), nil, engine.WithClock(clock.Real{}), engine.WithSeed(7),
					engine.WithProbe(wl.Probe), engine.WithChecks(wl.Checks()...))
				rep, err := scenario.Run(context.Background(), svc, sc)
				switch {
				case want.refused != "" && (err == nil || !strings.Contains(err.Error(), want.refused)):
					t.Fatalf("Run = %v, want refused before it starts: %s", err, want.refused)
				case want.refused != "":
					return
				case err != nil:
					t.Fatalf("Run = %v, want it to run", err)
				}
				if rep.Outcome != scenario.OutcomeCompleted || rep.Failed+rep.Skipped > 0 {
					t.Errorf("outcome %s, %d steps failed, %d skipped; want every step landed:\n%s", rep.Outcome, rep.Failed, rep.Skipped, rep)
				}
				for _, st := range rep.Steps {
					if st.Result != nil && !strings.HasPrefix(st.Result.Action.TargetID, "raft-") {
						t.Errorf("step %s hit %q, want a raft node", st.Label, st.Result.Action.TargetID)
					}
				}
				for _, c := range rep.Gate.Checks {
					if !c.Passed && !slices.Contains(want.weak, c.Name) {
						t.Errorf("gate %s: %s; want it held on raft:\n%s", c.Name, c.Reason, rep)
					}
				}
				t.Logf("%s: gate %s (%s), %s", name, rep.Gate.Verdict, strings.Join(rep.Gate.Reasons, "; "), rep.Report.Score.Grade)
			}, arenatest.WithSeed(7))
		})
	}
}
