package main

import (
	"encoding/json"
	"testing"

	"github.com/ares-arena/arena/scenarios"
)

func TestSchema(t *testing.T) {
	code, out, errOut := cli(t, "schema")
	if code != exitPass || errOut != "" || out != string(scenarios.Schema()) {
		t.Fatalf("exit %d, stderr %q, stdout is not the shipped schema", code, errOut)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc["title"] != "arena scenario" {
		t.Errorf("schema does not parse: %v", err)
	}
}
