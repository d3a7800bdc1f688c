package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// TestHealthEvents: a run sends one arena.health.changed per entry of its
// report's timeline, with the same offsets, verdicts and reasons, at the
// time of the sample on the run's clock.
func TestHealthEvents(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(3))
	store := events.NewMemoryStore()
	defer store.Close()
	svc := engine.NewService(fault.NewInjector(c, c), store, nil, engine.WithClock(clk), engine.WithProbe(c.Probe))
	r, err := svc.NewRun(engine.RunOptions{Seed: 3, Duration: 40 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r.Schedule(engine.Step{At: 5 * time.Second, Action: fault.Action{Type: fault.KillLeader}},
		engine.Step{At: 20 * time.Second, Action: fault.Action{Type: fault.KillOrchestrator}})
	rep, err := r.Play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Timeline) < 3 {
		t.Fatalf("timeline %+v: want the system to go down and come back", rep.Timeline)
	}
	evs, err := store.Read(context.Background(), events.Filter{Streams: []string{engine.EventStream}, Types: []string{engine.EventHealthChanged}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []engine.Transition
	for _, e := range evs {
		var h engine.HealthEvent
		if err := json.Unmarshal(e.Data, &h); err != nil {
			t.Fatal(err)
		}
		if h.RunID == "" || !e.Time.Equal(rep.Start.Add(h.At.D())) {
			t.Errorf("event %s: run %q at %s, offset %s from the run's start %s", e.ID, h.RunID, e.Time, h.At, rep.Start)
		}
		got = append(got, engine.Transition{At: h.At, Healthy: h.Healthy, Reason: h.Reason})
	}
	if diff := cmp.Diff(rep.Timeline, got); diff != "" {
		t.Errorf("health events differ from the report's timeline (-want +got):\n%s", diff)
	}
}

func TestHealthReasonIsCut(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(3))
	store := events.NewMemoryStore()
	defer store.Close()
	long := strings.Repeat("é", engine.MaxHealthReason) // two bytes each
	down := func(context.Context) error { return errString(long) }
	svc := engine.NewService(fault.NewInjector(c, c), store, nil, engine.WithClock(clk), engine.WithProbe(down))
	r, err := svc.NewRun(engine.RunOptions{Seed: 1, Duration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Play(context.Background()); err != nil {
		t.Fatal(err)
	}
	evs, _ := store.Read(context.Background(), events.Filter{Types: []string{engine.EventHealthChanged}}, 0)
	if len(evs) != 1 {
		t.Fatalf("%d health events for a probe that is always down, want 1", len(evs))
	}
	var h engine.HealthEvent
	_ = json.Unmarshal(evs[0].Data, &h)
	if len(h.Reason) > engine.MaxHealthReason || !strings.HasSuffix(h.Reason, "é…") || h.Healthy {
		t.Errorf("reason of %d bytes ending %q, want at most %d ending in a whole rune and …", len(h.Reason), h.Reason[len(h.Reason)-8:], engine.MaxHealthReason)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
