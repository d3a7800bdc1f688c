package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestAppendEvent(t *testing.T) {
	tests := []struct {
		name string
		in   Event
		want string
	}{
		{"full", Event{ID: "7", Event: "arena.action.executed", Data: []byte(`{"a":1}`)},
			"id: 7\nevent: arena.action.executed\ndata: {\"a\":1}\n\n"},
		{"retry only", Event{Retry: 3 * time.Second}, "retry: 3000\n\n"},
		{"data lines", Event{Data: []byte("a\nb\r\nc\rd")}, "data: a\ndata: b\ndata: c\ndata: d\n\n"},
		{"trailing newline", Event{Data: []byte("x\n")}, "data: x\ndata: \n\n"},
		{"empty data", Event{Event: "ping", Data: []byte{}}, "event: ping\ndata: \n\n"},
		{"no data", Event{ID: "3"}, "id: 3\n\n"},
	}
	for _, tt := range tests {
		got, err := AppendEvent(nil, tt.in)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: AppendEvent(%+v) = %q, %v; want %q", tt.name, tt.in, got, err, tt.want)
		}
	}
}

func TestAppendEventRejectsLineBreaks(t *testing.T) {
	for _, e := range []Event{{ID: "1\n2"}, {ID: "1\r"}, {ID: "a\x00"}, {Event: "x\ny"}} {
		got, err := AppendEvent([]byte("kept"), e)
		if !errors.Is(err, ErrLineBreak) || string(got) != "kept" {
			t.Errorf("AppendEvent(%+v) = %q, %v; want it unchanged and ErrLineBreak", e, got, err)
		}
	}
}

func TestAppendComment(t *testing.T) {
	if got := string(AppendComment(nil, "heartbeat")); got != ": heartbeat\n\n" {
		t.Errorf("AppendComment = %q", got)
	}
	if got := string(AppendComment(nil, "a\nb")); got != ": a\n: b\n\n" {
		t.Errorf("AppendComment(multi-line) = %q", got)
	}
}

func TestReader(t *testing.T) {
	stream := "retry: 2500\n\n: heartbeat\n\n" +
		"id: 1\nevent: a\ndata: one\n\n" +
		"event: ignored-no-data\n\n" +
		"data: two\ndata: lines\nunknown: x\n\n" + // no id: the last one sticks
		"id: 3\r\ndata:three\r\n\r\n" +
		"id: 4\ndata: unfinished"
	r := NewReader(strings.NewReader(stream))
	var got []Event
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	want := []Event{
		{ID: "1", Event: "a", Data: []byte("one")},
		{ID: "1", Data: []byte("two\nlines")},
		{ID: "3", Data: []byte("three")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if r.Retry() != 2500*time.Millisecond || r.Comments() != 1 || r.LastID() != "4" {
		t.Errorf("Retry, Comments, LastID = %v, %d, %q; want 2.5s, 1, \"4\"", r.Retry(), r.Comments(), r.LastID())
	}
}

// FuzzRoundTrip: what AppendEvent writes, Reader reads back unchanged.
func FuzzRoundTrip(f *testing.F) {
	f.Add("1", "arena.action.executed", []byte(`{"a":1}`))
	f.Add("", "", []byte("a\r\nb\rc\n"))
	f.Fuzz(func(t *testing.T, id, name string, data []byte) {
		frame, err := AppendEvent(nil, Event{ID: id, Event: name, Data: data})
		if err != nil {
			return
		}
		e, err := NewReader(bytes.NewReader(frame)).Next()
		if err != nil {
			t.Fatalf("Next(%q) = %v", frame, err)
		}
		// A client normalises line ends to \n; a field value loses one
		// leading space (the one after the colon is the separator).
		wantData := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(data))
		if e.ID != id || e.Event != name || string(e.Data) != wantData {
			t.Fatalf("round trip of %q = %+v", frame, e)
		}
	})
}
