package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ares-arena/arena/fault"
)

// TestPayloadSlabKeepsEachPayload encodes action and lift events in turn,
// some too long for the room, across several blocks, and checks that each
// payload is json.Marshal's and stays so: no later payload, nor an append
// to an earlier one, writes over it.
func TestPayloadSlabKeepsEachPayload(t *testing.T) {
	var slab payloadSlab
	var got, want [][]byte
	for i := range 3 * slabBlock / 100 {
		errText := ""
		if i%17 == 0 {
			errText = strings.Repeat("x", slabRoom) // past the room: a slice of its own
		}
		var p []byte
		var v any
		if i%2 == 0 {
			e := ActionEvent{ActionID: fmt.Sprintf("act-%06d", i), Type: fault.NetworkPartition, TargetID: "worker-1", Error: errText}
			p, v = slab.actionEvent(&e), e
		} else {
			e := liftEvent{ActionID: fmt.Sprintf("act-%06d", i), Type: fault.NetworkPartition, TargetID: "worker-1", Why: "request", Error: errText}
			p, v = slab.liftEvent(&e), e
		}
		w, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, want = append(got, p), append(want, w)
	}
	for _, p := range got {
		_ = append(p, "garbage"...) // must copy, or write into spare room of its own
	}
	for i := range got {
		if string(got[i]) != string(want[i]) {
			t.Errorf("payload %d = %s, want %s", i, got[i], want[i])
		}
	}
}
