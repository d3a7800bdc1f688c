package fakes_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
)

func TestFlightRecorderIsABoundedRing(t *testing.T) {
	ctx := context.Background()
	f := fakes.NewFlightRecorder(fakes.WithFlightCapacity(3))
	for i := 1; i <= 5; i++ {
		_ = f.RecordEvent(ctx, engine.FlightEvent{ActionID: fmt.Sprint(i)})
		_ = f.RecordDiagnostic(ctx, engine.Diagnostic{ActionID: fmt.Sprint(i)})
	}
	ids := func(es []engine.FlightEvent) (out []string) {
		for _, e := range es {
			out = append(out, e.ActionID)
		}
		return out
	}
	all, _ := f.Timeline(ctx)
	if diff := cmp.Diff([]string{"3", "4", "5"}, ids(all)); diff != "" {
		t.Errorf("Timeline (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		after     uint64
		limit     int
		want      []string
		wantFirst uint64
	}{
		{0, 2, []string{"4", "5"}, 4},       // the newest 2
		{0, 0, []string{"3", "4", "5"}, 3},  // everything retained
		{1, 10, []string{"3", "4", "5"}, 3}, // 2 fell out: from the oldest kept
		{3, 1, []string{"4"}, 4},            // one page forward
		{4, 10, []string{"5"}, 5},           // the last
		{5, 10, nil, 6},                     // nothing new
		{99, 10, nil, 100},                  // beyond the end
	} {
		got, first, dropped, err := f.TimelinePage(ctx, tc.after, tc.limit)
		if err != nil || first != tc.wantFirst || dropped != 2 || !cmp.Equal(tc.want, ids(got)) {
			t.Errorf("TimelinePage(%d, %d) = %v, first %d, dropped %d, %v; want %v, first %d, dropped 2",
				tc.after, tc.limit, ids(got), first, dropped, err, tc.want, tc.wantFirst)
		}
	}
	diags, first, _, _ := f.DiagnosticsPage(ctx, 0, 1)
	if len(diags) != 1 || diags[0].ActionID != "5" || first != 5 {
		t.Errorf("DiagnosticsPage(0, 1) = %+v, first %d; want the 5th", diags, first)
	}
}
