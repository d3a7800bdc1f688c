package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

func TestHistoryPage(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(1))
	store := events.NewMemoryStore()
	defer store.Close()
	svc := engine.NewService(fault.NewInjector(c, c), store, nil, engine.WithClock(clk), engine.WithHistoryCap(3))
	for i := 1; i <= 5; i++ {
		_ = svc.Execute(context.Background(), fault.Action{ID: fmt.Sprint("a", i), Type: fault.KillAgent, TargetID: "nobody"})
	}
	ids := func(rs []fault.Result) (out string) {
		for _, r := range rs {
			out += r.Action.ID + " "
		}
		return out
	}
	for _, tc := range []struct {
		after            uint64
		limit            int
		want             string
		first, wantDrops uint64
	}{
		{0, 0, "a3 a4 a5 ", 3, 2},
		{0, 1, "a5 ", 5, 2},
		{1, 2, "a3 a4 ", 3, 2}, // a1 and a2 fell out
		{4, 5, "a5 ", 5, 2},
		{5, 5, "", 6, 2},
	} {
		got, first, dropped := svc.HistoryPage(tc.after, tc.limit)
		if ids(got) != tc.want || first != tc.first || dropped != tc.wantDrops {
			t.Errorf("HistoryPage(%d, %d) = [%s] first %d dropped %d; want [%s] %d %d", tc.after, tc.limit, ids(got), first, dropped, tc.want, tc.first, tc.wantDrops)
		}
	}
}
