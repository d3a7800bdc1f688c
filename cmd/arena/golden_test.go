package main

import "testing"

// The two golden reports pin behaviour byte for byte (wall-clock fields
// zeroed): a fixed-seed survival run over many workers, which walks target
// selection, the scheduler, sampling and the event store, and a fixed-seed
// scenario that uses every fault type. Performance work must leave both
// unchanged; a change of behaviour updates them with go test -update and
// says why in its commit.

// goldenMix is the survival golden's mix: the fault types there were when
// it was written, named so that a type added since (which the fake cluster
// lands, and the default mix would draw) leaves the golden as it is.
const goldenMix = "kill_leader,kill_orchestrator,kill_agent,pause_agent,resume_agent,slow_agent,network_partition," +
	"tool_timeout,memory_corrupt,mcp_disconnect,llm_failure,remove_node,remove_edge,network_latency,network_bandwidth,connection_reset"

func TestSurviveGolden(t *testing.T) {
	code, out, errOut := cli(t, "survive", "--duration", "10m", "--interval", "3s", "--workers", "40", "--seed", "11", "--mix", goldenMix,
		"--json", "--progress", "never")
	if code != exitPass {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	golden(t, "survive-40-workers.json.golden", wallTime.ReplaceAll([]byte(out), []byte(`"wall_time": "0s"`)))
}

func TestRunEverythingGolden(t *testing.T) {
	code, out, errOut := cli(t, "run", "everything-at-once", "--seed", "7", "--json")
	if code != exitPass {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	golden(t, "run-everything-at-once.json.golden", wallTime.ReplaceAll([]byte(out), []byte(`"wall_time": "0s"`)))
}
