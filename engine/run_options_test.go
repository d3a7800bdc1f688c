package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// What a schedule of one's own may set on a run: its origin is a run's, a
// scenario's or a survival run's (an A/B test or an Execute is none), its
// plan fits in its duration, and its stop conditions name checks the
// system has.
func TestRunOptionsRefused(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk))
	svc := engine.NewService(fault.NewInjector(c, c), nil, nil, engine.WithClock(clk), engine.WithChecks(c.Checks()...))
	for _, tc := range []struct {
		opts engine.RunOptions
		want string
	}{
		{engine.RunOptions{Duration: time.Minute, Origin: engine.OriginRegression}, `origin: a run is run, scenario or survival, not "regression"`},
		{engine.RunOptions{Duration: time.Minute, Origin: engine.OriginExecute}, `not "execute"`},
		{engine.RunOptions{Duration: time.Minute, Planned: 2 * time.Minute}, "planned: 2m0s is outside the run's duration 1m0s"},
	} {
		if _, err := svc.NewRun(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewRun(%+v) = %v, want %q", tc.opts, err, tc.want)
		}
	}
	r, err := svc.NewRun(engine.RunOptions{Duration: time.Minute, Origin: engine.OriginScenario, Name: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AbortWhen(engine.AbortWhen{ChecksFailed: []string{"taks"}}); err == nil || !strings.Contains(err.Error(), `no check "taks"`) {
		t.Errorf("AbortWhen(a check the system lacks) = %v, want it refused naming the check", err)
	}
	if err := r.AbortWhen(engine.AbortWhen{ChecksFailed: []string{"tasks"}}); err != nil {
		t.Errorf("AbortWhen(tasks) = %v", err)
	}
	if rep, err := r.Play(context.Background()); err != nil || rep.Aborted != "" {
		t.Errorf("Play = %v, aborted %q; want a quiet minute", err, rep.Aborted)
	}
}
