package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAppendAssignsVersionsPerStream(t *testing.T) {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	type ids struct {
		ID       string
		Version  uint64
		Sequence uint64
	}
	steps := []struct {
		stream string
		evs    []Event
		want   uint64 // new version
		stored []ids
	}{
		{"arena", typed("a", 2), 2, []ids{{"arena-1", 1, 1}, {"arena-2", 2, 2}}},
		{"agent", typed("b", 1), 1, []ids{{"agent-1", 1, 3}}},
		{"arena", []Event{{Type: "c", ID: "mine"}}, 3, []ids{{"mine", 3, 4}}},
		{"agent", []Event{{Type: "d", Stream: "agent", Time: at}}, 2, []ids{{"agent-2", 2, 5}}},
	}
	ctx := context.Background()
	s := NewMemoryStore()
	defer s.Close()
	for i, st := range steps {
		before := s.Stats().Events
		got, err := s.Append(ctx, st.stream, st.evs, AnyVersion)
		if err != nil || got != st.want {
			t.Fatalf("step %d: Append(%q) = %d, %v, want %d, nil", i, st.stream, got, err, st.want)
		}
		stored, _ := s.Read(ctx, Filter{FromSequence: before}, 0)
		var gotIDs []ids
		for _, e := range stored {
			gotIDs = append(gotIDs, ids{e.ID, e.Version, e.Sequence})
			if e.Stream != st.stream {
				t.Errorf("step %d: stored Stream = %q, want %q", i, e.Stream, st.stream)
			}
		}
		if diff := cmp.Diff(st.stored, gotIDs); diff != "" {
			t.Errorf("step %d: stored events (-want +got):\n%s", i, diff)
		}
	}
	for stream, want := range map[string]uint64{"arena": 3, "agent": 2, "unknown": 0} {
		if got, err := s.StreamVersion(ctx, stream); got != want || err != nil {
			t.Errorf("StreamVersion(%q) = %d, %v, want %d, nil", stream, got, err, want)
		}
	}
	last, _ := s.Read(ctx, Filter{FromSequence: 4}, 0)
	if !last[0].Time.Equal(at) {
		t.Errorf("stored Time = %v, want %v as given", last[0].Time, at)
	}
}

// Append owns Data and Metadata (it keeps them without copying) but never
// writes into the caller's slice of events.
func TestAppendDoesNotWriteCallerSlice(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	defer s.Close()
	evs := []Event{{Type: "a", Data: json.RawMessage(`{"n":1}`), Metadata: map[string]string{"k": "v"}}}
	if _, err := s.Append(ctx, "arena", evs, 0); err != nil {
		t.Fatal(err)
	}
	if evs[0].Version != 0 || evs[0].ID != "" || evs[0].Stream != "" || evs[0].Sequence != 0 {
		t.Errorf("Append wrote into the caller's slice: %+v", evs[0])
	}
	got, _ := s.Read(ctx, Filter{}, 0)
	if string(got[0].Data) != `{"n":1}` || got[0].Metadata["k"] != "v" || got[0].Version != 1 {
		t.Errorf("stored %+v", got[0])
	}
}

func TestRetentionBytes(t *testing.T) {
	ctx := context.Background()
	one := Event{Type: "t", Data: json.RawMessage(`"` + strings.Repeat("x", 998) + `"`)}
	size := eventSize(&Event{ID: "s-1", Stream: "s", Type: one.Type, Data: one.Data})
	// An ID the store makes on the way out counts as if it were kept.
	for _, v := range []uint64{1, 9, 10, 12345} {
		made, kept := Event{Stream: "s", Version: v, Data: one.Data}, Event{Stream: "s", Version: v, Data: one.Data}
		kept.ID = withID(made).ID
		if eventSize(&made) != eventSize(&kept) {
			t.Errorf("version %d: size %d without the ID, %d with it", v, eventSize(&made), eventSize(&kept))
		}
	}
	tests := []struct {
		name         string
		opts         []Option
		appends      int
		wantRetained int
	}{
		{"room for three", []Option{WithRetentionBytes(3*size + size/2)}, 10, 3},
		{"newest always kept", []Option{WithRetentionBytes(1)}, 4, 1},
		{"count tighter than bytes", []Option{WithRetention(2), WithRetentionBytes(100 * size)}, 10, 2},
		{"bytes tighter than count", []Option{WithRetention(8), WithRetentionBytes(5*size + size/2)}, 10, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewMemoryStore(tt.opts...)
			defer s.Close()
			for range tt.appends {
				// IDs "s-1" … "s-10" differ in length by at most one byte.
				if _, err := s.Append(ctx, "s", []Event{one}, AnyVersion); err != nil {
					t.Fatal(err)
				}
			}
			st := s.Stats()
			if st.Retained != tt.wantRetained || st.Dropped != uint64(tt.appends-tt.wantRetained) {
				t.Errorf("Stats() = %+v, want %d retained of %d", st, tt.wantRetained, tt.appends)
			}
			got, _ := s.Read(ctx, Filter{}, 0)
			if len(got) != tt.wantRetained || got[len(got)-1].Sequence != uint64(tt.appends) ||
				got[0].Sequence != uint64(tt.appends-tt.wantRetained+1) {
				t.Errorf("Read = %d events, first %d, last %d", len(got), got[0].Sequence, got[len(got)-1].Sequence)
			}
		})
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("WithRetentionBytes(0) did not panic")
		}
	}()
	WithRetentionBytes(0)
}

func TestAppendConflict(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		existing int // events already in "arena"
		expected uint64
		wantErr  *ConflictError // nil: success
	}{
		{"new stream expects 0", 0, 0, nil},
		{"new stream expects 1", 0, 1, &ConflictError{"arena", 1, 0}},
		{"matching version", 3, 3, nil},
		{"stale version", 5, 3, &ConflictError{"arena", 3, 5}},
		{"future version", 2, 3, &ConflictError{"arena", 3, 2}},
		{"any version", 5, AnyVersion, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewMemoryStore()
			defer s.Close()
			if tt.existing > 0 {
				if _, err := s.Append(ctx, "arena", typed("a", tt.existing), 0); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.Append(ctx, "arena", typed("b", 1), tt.expected)
			if tt.wantErr == nil {
				if want := uint64(tt.existing + 1); err != nil || got != want {
					t.Fatalf("Append = %d, %v, want %d, nil", got, err, want)
				}
				return
			}
			if !errors.Is(err, ErrConflict) {
				t.Fatalf("Append error = %v, want one wrapping ErrConflict", err)
			}
			var ce *ConflictError
			if !errors.As(err, &ce) {
				t.Fatalf("Append error = %T, want *ConflictError", err)
			}
			if diff := cmp.Diff(tt.wantErr, ce); diff != "" {
				t.Errorf("ConflictError (-want +got):\n%s", diff)
			}
			if want := fmt.Sprintf("events: stream \"arena\": expected version %d, actual %d", tt.expected, tt.existing); err.Error() != want {
				t.Errorf("Error() = %q, want %q", err, want)
			}
			if v, _ := s.StreamVersion(ctx, "arena"); v != uint64(tt.existing) {
				t.Errorf("StreamVersion after conflict = %d, want %d (nothing appended)", v, tt.existing)
			}
		})
	}
}

func TestAppendZeroEvents(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	defer s.Close()
	if _, err := s.Append(ctx, "arena", typed("a", 2), 0); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Append(ctx, "arena", nil, 2); got != 2 || err != nil {
		t.Errorf("Append(no events, 2) = %d, %v, want 2, nil", got, err)
	}
	if got, err := s.Append(ctx, "arena", nil, AnyVersion); got != 2 || err != nil {
		t.Errorf("Append(no events, AnyVersion) = %d, %v, want 2, nil", got, err)
	}
	if _, err := s.Append(ctx, "arena", nil, 1); !errors.Is(err, ErrConflict) {
		t.Errorf("Append(no events, 1) error = %v, want ErrConflict", err)
	}
	if st := s.Stats(); st.Events != 2 {
		t.Errorf("Stats().Events = %d, want 2", st.Events)
	}
}

func TestAppendValidation(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		evs    []Event
		want   string
	}{
		{"empty stream", "", typed("a", 1), "events: empty stream name"},
		{"empty type", "arena", []Event{{Type: "a"}, {}}, "events: event[1]: empty type"},
		{"other stream", "arena", []Event{{Type: "a", Stream: "agent"}}, `events: event[0]: stream "agent" differs from append stream "arena"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewMemoryStore()
			defer s.Close()
			_, err := s.Append(context.Background(), tt.stream, tt.evs, AnyVersion)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Append(%q, %d events) error = %v, want %q", tt.stream, len(tt.evs), err, tt.want)
			}
			if st := s.Stats(); st.Events != 0 {
				t.Errorf("Stats().Events = %d after a rejected append, want 0", st.Events)
			}
		})
	}
}

func TestContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := NewMemoryStore()
	defer s.Close()
	if _, err := s.Append(ctx, "arena", typed("a", 1), AnyVersion); !errors.Is(err, context.Canceled) {
		t.Errorf("Append error = %v, want context.Canceled", err)
	}
	if _, err := s.StreamVersion(ctx, "arena"); !errors.Is(err, context.Canceled) {
		t.Errorf("StreamVersion error = %v, want context.Canceled", err)
	}
	if _, err := s.Read(ctx, Filter{}, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Read error = %v, want context.Canceled", err)
	}
	if _, err := s.Subscribe(ctx, Filter{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Subscribe error = %v, want context.Canceled", err)
	}
}

// TestOptimisticConcurrency runs the read-decide-append-retry loop that
// writers are meant to use, and checks that no write is lost or doubled.
func TestOptimisticConcurrency(t *testing.T) {
	const writers, perWriter = 8, 200
	ctx := context.Background()
	s := NewMemoryStore()
	defer s.Close()

	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				ev := Event{Type: "arena.write", Data: json.RawMessage(fmt.Sprintf(`"%d/%d"`, w, i))}
				for {
					v, err := s.StreamVersion(ctx, "arena")
					if err != nil {
						errs <- err
						return
					}
					_, err = s.Append(ctx, "arena", []Event{ev}, v)
					if err == nil {
						break
					}
					if !errors.Is(err, ErrConflict) {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	got, _ := s.Read(ctx, Filter{}, 0)
	if len(got) != writers*perWriter {
		t.Fatalf("Read returned %d events, want %d", len(got), writers*perWriter)
	}
	seen := make(map[string]bool)
	for i, e := range got {
		if want := uint64(i + 1); e.Version != want || e.Sequence != want {
			t.Fatalf("event %d: Version %d, Sequence %d, want both %d", i, e.Version, e.Sequence, want)
		}
		if seen[string(e.Data)] {
			t.Fatalf("write %s appended twice", e.Data)
		}
		seen[string(e.Data)] = true
	}
}

func TestRead(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	defer s.Close()
	// Sequences: 1 arena.a, 2 agent.b, 3 arena.c, 4 agent.d, 5 arena.e.
	for i, typ := range []string{"arena.a", "agent.b", "arena.c", "agent.d", "arena.e"} {
		stream := []string{"arena", "agent"}[i%2]
		if _, err := s.Append(ctx, stream, typed(typ, 1), AnyVersion); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		filter Filter
		limit  int
		want   []uint64
	}{
		{"all", Filter{}, 0, []uint64{1, 2, 3, 4, 5}},
		{"negative limit is all", Filter{}, -1, []uint64{1, 2, 3, 4, 5}},
		{"limit", Filter{}, 2, []uint64{1, 2}},
		{"limit counts matches", Filter{Streams: []string{"agent"}}, 1, []uint64{2}},
		{"stream", Filter{Streams: []string{"arena"}}, 0, []uint64{1, 3, 5}},
		{"type prefix", Filter{Types: []string{"agent.*"}}, 0, []uint64{2, 4}},
		{"from sequence", Filter{FromSequence: 3}, 0, []uint64{4, 5}},
		{"from sequence and stream", Filter{Streams: []string{"arena"}, FromSequence: 1}, 1, []uint64{3}},
		{"from the end", Filter{FromSequence: 5}, 0, nil},
		{"from beyond the end", Filter{FromSequence: 50}, 0, nil},
		{"no match", Filter{Types: []string{"x"}}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Read(ctx, tt.filter, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, sequences(got)); diff != "" {
				t.Errorf("Read(%+v, %d) sequences (-want +got):\n%s", tt.filter, tt.limit, diff)
			}
		})
	}
}

// TestRetention checks the ring against the obvious model: the retained events
// are always the last min(total, retention) sequences.
func TestRetention(t *testing.T) {
	tests := []struct {
		name      string
		retention int
		batches   []int
	}{
		{"nothing dropped", 100, []int{3, 4}},
		{"one at a time", 3, []int{1, 1, 1, 1, 1}},
		{"exactly full", 5, []int{2, 3}},
		{"batch larger than retention", 3, []int{7}},
		{"wraps repeatedly", 4, []int{2, 3, 4, 1, 7}},
		{"grows then wraps", 40, []int{10, 10, 10, 25, 3}},
		{"retention of one", 1, []int{2, 1, 3}},
		{"across chunks", 150, []int{60, 70, 100, 200, 1}},
		{"a chunk exactly", chunkLen, []int{chunkLen, 1, chunkLen - 1, 2*chunkLen + 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := NewMemoryStore(WithRetention(tt.retention), WithSubscriberBuffer(1000))
			defer s.Close()
			sub, err := s.Subscribe(ctx, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			var total uint64
			for _, n := range tt.batches {
				if _, err := s.Append(ctx, "arena", typed("a", n), total); err != nil {
					t.Fatal(err)
				}
				total += uint64(n)

				retained := min(total, uint64(tt.retention))
				first := total - retained + 1
				got, _ := s.Read(ctx, Filter{}, 0)
				if diff := cmp.Diff(seqRange(first, total), sequences(got)); diff != "" {
					t.Fatalf("after %d events, retained sequences (-want +got):\n%s", total, diff)
				}
				if got[0].Version != first {
					t.Errorf("oldest retained Version = %d, want %d (versions keep counting)", got[0].Version, first)
				}
				// Resuming from before the retained range yields the whole range,
				// from inside it only the rest.
				for _, from := range []uint64{0, first - 1, first, total - 1} {
					got, _ := s.Read(ctx, Filter{FromSequence: from}, 0)
					if diff := cmp.Diff(seqRange(max(from+1, first), total), sequences(got)); diff != "" {
						t.Errorf("Read(FromSequence %d) (-want +got):\n%s", from, diff)
					}
				}
				// Memory: the retained events' chunks, and one more at most.
				if held, most := len(s.log.chunks), tt.retention/chunkLen+2; held > most {
					t.Errorf("%d chunks held for a retention of %d, want at most %d", held, tt.retention, most)
				}
				want := Stats{Events: total, Retained: int(retained), Dropped: total - retained, Subscribers: 1}
				if diff := cmp.Diff(want, s.Stats()); diff != "" {
					t.Errorf("Stats() (-want +got):\n%s", diff)
				}
			}
			sub.Close()
			// The subscriber saw every event, dropped or not.
			if diff := cmp.Diff(seqRange(1, total), sequences(drain(t, sub))); diff != "" {
				t.Errorf("subscriber sequences (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOptionsPanicOnMisuse(t *testing.T) {
	for name, f := range map[string]func(){
		"WithRetention(0)":         func() { WithRetention(0) },
		"WithSubscriberBuffer(-1)": func() { WithSubscriberBuffer(-1) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		})
	}
}

func TestOptionsCompare(t *testing.T) {
	if WithRetention(5) != WithRetention(5) || WithRetention(5) == WithSubscriberBuffer(5) {
		t.Error("options are not comparable values")
	}
}

func TestClose(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	if _, err := s.Append(ctx, "arena", typed("a", 2), 0); err != nil {
		t.Fatal(err)
	}
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	sub, err := s.Subscribe(subCtx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if got := drain(t, sub); len(got) != 2 {
		t.Errorf("subscription held %d replayed events after Close, want 2", len(got))
	}
	if err := sub.Err(); !errors.Is(err, ErrClosed) {
		t.Errorf("Subscription.Err() = %v, want ErrClosed", err)
	}
	sub.Close() // keeps the reason
	if err := sub.Err(); !errors.Is(err, ErrClosed) {
		t.Errorf("Subscription.Err() after its Close = %v, want ErrClosed", err)
	}
	if _, err := s.Append(ctx, "arena", typed("a", 1), AnyVersion); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close error = %v, want ErrClosed", err)
	}
	if _, err := s.Subscribe(ctx, Filter{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Subscribe after Close error = %v, want ErrClosed", err)
	}
	if got, err := s.Read(ctx, Filter{}, 0); len(got) != 2 || err != nil {
		t.Errorf("Read after Close = %d events, %v, want 2, nil", len(got), err)
	}
	if v, err := s.StreamVersion(ctx, "arena"); v != 2 || err != nil {
		t.Errorf("StreamVersion after Close = %d, %v, want 2, nil", v, err)
	}
	if st := s.Stats(); st.Subscribers != 0 {
		t.Errorf("Stats().Subscribers after Close = %d, want 0", st.Subscribers)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
}

// AppendEvent(e) is Append of []Event{e}: the same versions, sequences,
// conflicts, errors, stored events and deliveries, step by step.
func TestAppendEventIsAppendOfOne(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		stream   string
		e        Event
		expected uint64
	}{
		{"arena", Event{Type: "a", Time: at, Data: json.RawMessage(`{"n":1}`)}, 0},
		{"arena", Event{Type: "b"}, 1},
		{"arena", Event{Type: "c"}, 1}, // conflict: the version is 2
		{"agent", Event{Type: "d", ID: "mine"}, 0},
		{"agent", Event{Type: "e", Stream: "agent"}, AnyVersion},
		{"arena", Event{Type: "f", Stream: "agent"}, AnyVersion}, // another stream's event
		{"arena", Event{}, AnyVersion},                           // no type
		{"", Event{Type: "g"}, AnyVersion},                       // no stream
		{"new", Event{Type: "h"}, 3},                             // conflict on a new stream
		{"arena", Event{Type: "i"}, 2},
	}
	type store struct {
		s   *MemoryStore
		sub *Subscription
	}
	open := func() store {
		s := NewMemoryStore()
		sub, err := s.Subscribe(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return store{s, sub}
	}
	slice, one := open(), open()
	for i, st := range steps {
		v1, err1 := slice.s.Append(ctx, st.stream, []Event{st.e}, st.expected)
		v2, err2 := one.s.AppendEvent(ctx, st.stream, st.e, st.expected)
		if v1 != v2 || fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("step %d: Append = %d, %v; AppendEvent = %d, %v", i, v1, err1, v2, err2)
		}
	}
	for _, stream := range []string{"arena", "agent", "new"} {
		v1, _ := slice.s.StreamVersion(ctx, stream)
		v2, _ := one.s.StreamVersion(ctx, stream)
		if v1 != v2 {
			t.Errorf("StreamVersion(%q): %d after Append, %d after AppendEvent", stream, v1, v2)
		}
	}
	read1, _ := slice.s.Read(ctx, Filter{}, 0)
	read2, _ := one.s.Read(ctx, Filter{}, 0)
	if len(read1) != 5 { // a, b, d, e, i
		t.Errorf("%d events stored, want 5", len(read1))
	}
	if diff := cmp.Diff(read1, read2); diff != "" {
		t.Errorf("stored events (-Append +AppendEvent):\n%s", diff)
	}
	var got [2][]Event
	for k, st := range []store{slice, one} {
		for range read1 {
			select {
			case e := <-st.sub.C():
				got[k] = append(got[k], e)
			case <-time.After(10 * time.Second):
				t.Fatalf("store %d: %d events delivered, want %d", k, len(got[k]), len(read1))
			}
		}
		st.s.Close()
	}
	if diff := cmp.Diff(got[0], got[1]); diff != "" {
		t.Errorf("delivered (-Append +AppendEvent):\n%s", diff)
	}
	if _, err := one.s.AppendEvent(ctx, "arena", Event{Type: "j"}, AnyVersion); !errors.Is(err, ErrClosed) {
		t.Errorf("AppendEvent after Close = %v, want ErrClosed", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := NewMemoryStore().AppendEvent(cctx, "arena", Event{Type: "k"}, AnyVersion); !errors.Is(err, context.Canceled) {
		t.Errorf("AppendEvent with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestDigits(t *testing.T) {
	vs := []uint64{0, 1, 9, 10, 11, 99, 100, 999_999, 1_000_000, 1<<63 - 1, 9_999_999_999_999_999_999, 10_000_000_000_000_000_000, ^uint64(0)}
	for i := range 64 {
		vs = append(vs, 1<<i, 1<<i-1)
	}
	for _, v := range vs {
		if got, want := digits(v), len(strconv.FormatUint(v, 10)); got != want {
			t.Errorf("digits(%d) = %d, want %d", v, got, want)
		}
	}
}
