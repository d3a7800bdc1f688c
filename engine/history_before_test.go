package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

func TestHistoryBefore(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(1))
	svc := engine.NewService(fault.NewInjector(c, c), nil, nil, engine.WithClock(clk), engine.WithHistoryCap(4))
	ids := func(rs []fault.Result) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Action.ID)
		}
		return strings.Join(out, " ")
	}
	if got, first, _ := svc.HistoryBefore(0, 2); len(got) != 0 || first != 1 {
		t.Errorf("empty history: %q first %d, want none and 1", ids(got), first)
	}
	for i := 1; i <= 3; i++ {
		_ = svc.Execute(context.Background(), fault.Action{ID: fmt.Sprint("a", i), Type: fault.KillAgent, TargetID: "nobody"})
	}
	for _, tc := range []struct {
		before      uint64
		limit       int
		want        string
		first, drop uint64
	}{
		{0, 2, "a2 a3", 2, 0},
		{2, 2, "a1", 1, 0}, // what HistoryPage cannot answer: after=0 is "the newest"
		{1, 2, "", 1, 0},
		{3, 0, "a1 a2", 1, 0},
		{99, 1, "a3", 3, 0},
	} {
		got, first, dropped := svc.HistoryBefore(tc.before, tc.limit)
		if ids(got) != tc.want || first != tc.first || dropped != tc.drop {
			t.Errorf("HistoryBefore(%d, %d) = %q first %d dropped %d; want %q %d %d", tc.before, tc.limit, ids(got), first, dropped, tc.want, tc.first, tc.drop)
		}
	}
	// Past the cap: the ring has wrapped, a1..a3 fell out.
	for i := 4; i <= 7; i++ {
		_ = svc.Execute(context.Background(), fault.Action{ID: fmt.Sprint("a", i), Type: fault.KillAgent, TargetID: "nobody"})
	}
	var walked []string
	before := uint64(0)
	for range 10 {
		got, first, dropped := svc.HistoryBefore(before, 3)
		if dropped != 3 {
			t.Fatalf("dropped = %d, want 3", dropped)
		}
		if len(got) == 0 {
			break
		}
		walked = append([]string{ids(got)}, walked...)
		before = first
	}
	if got := strings.Join(walked, " "); got != "a4 a5 a6 a7" {
		t.Errorf("walking back from the newest read %q, want a4 a5 a6 a7 (each once)", got)
	}
}
