package raftsim

import (
	"bytes"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/raft"
)

// sink is a raft.SnapshotSink in memory.
type sink struct{ bytes.Buffer }

func (*sink) ID() string    { return "test" }
func (*sink) Cancel() error { return nil }
func (*sink) Close() error  { return nil }

// A snapshot restores the state it was taken of; a cut one is an error.
func TestSnapshotRoundTrip(t *testing.T) {
	kv := NewKV()
	for i, key := range []string{"k1", "k2", "k1", "k3", "k1"} {
		kv.Apply(&raft.Log{Data: encode(opAppend, key, uint64(i)<<40|uint64(1000+i))})
	}
	snap, err := kv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var s sink
	if err := snap.Persist(&s); err != nil {
		t.Fatal(err)
	}
	data := s.Bytes()
	got := NewKV()
	if err := got.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(kv.data, got.data); diff != "" {
		t.Errorf("restored (-want +got):\n%s", diff)
	}
	if err := NewKV().Restore(io.NopCloser(bytes.NewReader(data[:len(data)-2]))); err == nil {
		t.Error("a cut snapshot restored without an error")
	}
}
