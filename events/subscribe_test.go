package events

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSubscribeDeliversInOrder(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		filter Filter
	}{
		{"all", Filter{}},
		{"one stream", Filter{Streams: []string{"agent"}}},
		{"type prefix", Filter{Types: []string{"arena.fault.*"}}},
		{"from a future sequence", Filter{FromSequence: 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewMemoryStore()
			defer s.Close()
			sub, err := s.Subscribe(ctx, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 12 {
				stream := []string{"arena", "agent", "observer"}[i%3]
				typ := []string{"arena.action.executed", "arena.fault.injected"}[i%2]
				if _, err := s.Append(ctx, stream, typed(typ, 1+i%2), AnyVersion); err != nil {
					t.Fatal(err)
				}
			}
			sub.Close()
			if err := sub.Err(); err != nil {
				t.Errorf("Err() after Close = %v, want nil", err)
			}
			want, _ := s.Read(ctx, tt.filter, 0)
			got := drain(t, sub)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("delivered events differ from Read (-want +got):\n%s", diff)
			}
			checkStoreIDs(t, got)
			if len(got) > 0 && sub.LastSequence() != got[len(got)-1].Sequence {
				t.Errorf("LastSequence() = %d, want %d", sub.LastSequence(), got[len(got)-1].Sequence)
			}
		})
	}
}

func TestSubscribeReplaysFromSequence(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		from     uint64
		want     []uint64 // after 5 retained and 2 live events
		wantLast uint64   // LastSequence before anything is appended live
	}{
		{"from zero replays everything", 0, seqRange(1, 7), 5},
		{"from the middle", 3, seqRange(4, 7), 5},
		{"from the end replays nothing", 5, seqRange(6, 7), 5},
		{"from the future", 6, []uint64{7}, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewMemoryStore()
			defer s.Close()
			if _, err := s.Append(ctx, "arena", typed("a", 5), 0); err != nil {
				t.Fatal(err)
			}
			sub, err := s.Subscribe(ctx, Filter{FromSequence: tt.from})
			if err != nil {
				t.Fatal(err)
			}
			if got := sub.LastSequence(); got != tt.wantLast {
				t.Errorf("LastSequence() after replay = %d, want %d", got, tt.wantLast)
			}
			if _, err := s.Append(ctx, "arena", typed("a", 2), 5); err != nil {
				t.Fatal(err)
			}
			sub.Close()
			got := drain(t, sub)
			if diff := cmp.Diff(tt.want, sequences(got)); diff != "" {
				t.Errorf("sequences (-want +got):\n%s", diff)
			}
			checkStoreIDs(t, got) // replayed from the ring and delivered live
		})
	}
}

// checkStoreIDs checks that events appended without an ID carry the
// store's, "<stream>-<version>".
func checkStoreIDs(t *testing.T, evs []Event) {
	t.Helper()
	for _, e := range evs {
		if want := fmt.Sprintf("%s-%d", e.Stream, e.Version); e.ID != want {
			t.Errorf("event %d: ID %q, want %q", e.Sequence, e.ID, want)
		}
	}
}

// TestSubscribeReplayWhileAppending subscribes mid-run while a writer keeps
// appending, and checks the subscriber sees exactly the events after its
// starting point: none lost between replay and live delivery, none twice.
// With a small buffer the subscriber lags repeatedly and resumes from
// LastSequence each time, which must not lose or repeat events either.
func TestSubscribeReplayWhileAppending(t *testing.T) {
	const total, from = 3000, 100
	tests := []struct {
		name   string
		buffer int
	}{
		{"buffer holds everything", total},
		{"small buffer resumes after lag", 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
			defer cancel()
			s := NewMemoryStore(WithSubscriberBuffer(tt.buffer))
			defer s.Close()

			// One writer alternates streams, so odd sequences are on "a".
			started := make(chan struct{})
			writerErr := make(chan error, 1)
			go func() {
				for i := 1; i <= total; i++ {
					if i == 2*from {
						close(started)
					}
					stream := "b"
					if i%2 == 1 {
						stream = "a"
					}
					if _, err := s.Append(ctx, stream, typed("x", 1), AnyVersion); err != nil {
						writerErr <- err
						return
					}
				}
				writerErr <- nil
			}()
			<-started

			var got []uint64
			resumes := 0
			f := Filter{Streams: []string{"a"}, FromSequence: from}
			for len(got) == 0 || got[len(got)-1] < total-1 {
				sub, err := s.Subscribe(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				for e := range sub.C() {
					got = append(got, e.Sequence)
					if e.Sequence == total-1 {
						sub.Close()
					}
				}
				if err := sub.Err(); err != nil {
					if !errors.Is(err, ErrLagged) {
						t.Fatalf("subscription ended with %v after %d events, want ErrLagged", err, len(got))
					}
					resumes++
				}
				f.FromSequence = sub.LastSequence()
			}
			if err := <-writerErr; err != nil {
				t.Fatal(err)
			}
			var want []uint64
			for s := uint64(from + 1); s <= total; s += 2 {
				want = append(want, s)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("sequences after %d resumes (-want +got):\n%s", resumes, diff)
			}
			t.Logf("resumed %d times", resumes)
		})
	}
}

func TestSubscribeReplayOverflowsBuffer(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore(WithSubscriberBuffer(4))
	defer s.Close()
	if _, err := s.Append(ctx, "arena", typed("a", 10), 0); err != nil {
		t.Fatal(err)
	}
	sub, err := s.Subscribe(ctx, Filter{FromSequence: 2})
	if err != nil {
		t.Fatalf("Subscribe error = %v, want the lag reported by the subscription", err)
	}
	if diff := cmp.Diff(seqRange(3, 6), sequences(drain(t, sub))); diff != "" {
		t.Errorf("replayed sequences (-want +got):\n%s", diff)
	}
	err = sub.Err()
	if want := "events: subscriber lagged after sequence 6: buffer of 4 full"; !errors.Is(err, ErrLagged) || err.Error() != want {
		t.Errorf("Err() = %v, want %q wrapping ErrLagged", err, want)
	}
	if got := sub.LastSequence(); got != 6 {
		t.Errorf("LastSequence() = %d, want 6", got)
	}
	if diff := cmp.Diff(Stats{Events: 10, Retained: 10, LaggedSubscribers: 1}, s.Stats()); diff != "" {
		t.Errorf("Stats() (-want +got):\n%s", diff)
	}
	sub.Close()
	if !errors.Is(sub.Err(), ErrLagged) {
		t.Errorf("Err() after Close = %v, want the lag kept", sub.Err())
	}
}

// TestStalledSubscriberDoesNotBlockAppend is the property the store exists
// for: a consumer that stops reading must not stall the run.
func TestStalledSubscriberDoesNotBlockAppend(t *testing.T) {
	const buffer = 16
	ctx := context.Background()
	s := NewMemoryStore(WithSubscriberBuffer(buffer))
	defer s.Close()
	stalled, err := s.Subscribe(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	healthy, err := s.Subscribe(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	healthyGot := make(chan []Event, 1)
	go func() {
		var got []Event
		for e := range healthy.C() {
			got = append(got, e)
		}
		healthyGot <- got
	}()

	appended := make(chan error, 1)
	go func() {
		for i := range 10 * buffer {
			if _, err := s.Append(ctx, "arena", typed("a", 1), uint64(i)); err != nil {
				appended <- err
				return
			}
		}
		appended <- nil
	}()
	select {
	case err := <-appended:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitTimeout):
		t.Fatalf("Append blocked on a stalled subscriber")
	}

	if v, _ := s.StreamVersion(ctx, "arena"); v != 10*buffer {
		t.Errorf("StreamVersion = %d, want %d", v, 10*buffer)
	}
	err = stalled.Err()
	want := fmt.Sprintf("events: subscriber lagged after sequence %d: buffer of %d full", buffer, buffer)
	if !errors.Is(err, ErrLagged) || err.Error() != want {
		t.Errorf("stalled Err() = %v, want %q wrapping ErrLagged", err, want)
	}
	if diff := cmp.Diff(seqRange(1, buffer), sequences(drain(t, stalled))); diff != "" {
		t.Errorf("stalled subscriber kept (-want +got):\n%s", diff)
	}

	healthy.Close()
	got := <-healthyGot
	// The healthy reader may itself have lagged on a slow machine; what it
	// did receive must be a gap-free prefix.
	if diff := cmp.Diff(seqRange(1, uint64(len(got))), sequences(got)); diff != "" {
		t.Errorf("healthy subscriber sequences (-want +got):\n%s", diff)
	}
	st := s.Stats()
	if st.Events != 10*buffer || st.LaggedSubscribers < 1 || st.Subscribers != 0 {
		t.Errorf("Stats() = %+v, want 160 events, the stalled subscriber lagged, none open", st)
	}
}

func TestSubscribeContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := NewMemoryStore()
	defer s.Close()
	sub, err := s.Subscribe(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(context.Background(), "arena", typed("a", 1), 0); err != nil {
		t.Fatal(err)
	}
	if err := sub.Err(); err != nil {
		t.Errorf("Err() while open = %v, want nil", err)
	}
	cancel()
	if got := drain(t, sub); len(got) != 1 {
		t.Errorf("read %d events, want the 1 buffered before cancel", len(got))
	}
	if err := sub.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("Err() = %v, want context.Canceled", err)
	}
	if st := s.Stats(); st.Subscribers != 0 {
		t.Errorf("Stats().Subscribers = %d after cancel, want 0", st.Subscribers)
	}
	// Appending after the subscription ended must not touch its channel.
	if _, err := s.Append(context.Background(), "arena", typed("a", 1), 1); err != nil {
		t.Fatal(err)
	}
	sub.Close()
	if err := sub.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("Err() after Close = %v, want context.Canceled kept", err)
	}
}

func TestSubscriptionClose(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := NewMemoryStore()
	defer s.Close()
	subs := make([]*Subscription, 3)
	for i := range subs {
		var err error
		if subs[i], err = s.Subscribe(ctx, Filter{}); err != nil {
			t.Fatal(err)
		}
	}
	subs[1].Close()
	subs[1].Close()
	if err := subs[1].Err(); err != nil {
		t.Errorf("Err() after Close = %v, want nil", err)
	}
	if _, ok := <-subs[1].C(); ok {
		t.Error("C() still open after Close")
	}
	if _, err := s.Append(ctx, "arena", typed("a", 1), 0); err != nil {
		t.Fatal(err)
	}
	if got := s.Stats().Subscribers; got != 2 {
		t.Errorf("Stats().Subscribers = %d, want 2", got)
	}
	for _, i := range []int{0, 2} {
		if e := <-subs[i].C(); e.Sequence != 1 {
			t.Errorf("subscriber %d got sequence %d, want 1", i, e.Sequence)
		}
	}
}
