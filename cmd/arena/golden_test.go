package main

import "testing"

// The two golden reports pin behaviour byte for byte (wall-clock fields
// zeroed): a fixed-seed survival run over many workers, which walks target
// selection, the scheduler, sampling and the event store, and a fixed-seed
// scenario that uses every fault type. Performance work must leave both
// unchanged; a change of behaviour updates them with go test -update and
// says why in its commit.

func TestSurviveGolden(t *testing.T) {
	code, out, errOut := cli(t, "survive", "--duration", "10m", "--interval", "3s", "--workers", "40", "--seed", "11", "--json", "--progress", "never")
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
