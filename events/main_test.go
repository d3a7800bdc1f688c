package events

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// waitTimeout bounds every wait in these tests, so a bug that blocks shows up
// as a failure naming what was awaited rather than as a test-binary timeout.
const waitTimeout = 10 * time.Second

// drain reads sub until its channel closes and returns what it read.
func drain(t *testing.T, sub *Subscription) []Event {
	t.Helper()
	var got []Event
	timeout := time.After(waitTimeout)
	for {
		select {
		case e, ok := <-sub.C():
			if !ok {
				return got
			}
			got = append(got, e)
		case <-timeout:
			t.Fatalf("subscription still open after %v, read %d events", waitTimeout, len(got))
		}
	}
}

// sequences returns the Sequence of each event.
func sequences(evs []Event) []uint64 {
	var out []uint64
	for _, e := range evs {
		out = append(out, e.Sequence)
	}
	return out
}

// seqRange returns from, from+1, …, to (nil when from > to).
func seqRange(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

// typed returns n events of type typ.
func typed(typ string, n int) []Event {
	evs := make([]Event, n)
	for i := range evs {
		evs[i].Type = typ
	}
	return evs
}
