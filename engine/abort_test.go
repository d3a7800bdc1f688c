package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// A scenario on a system broken before its warmup is aborted before its
// first fault, and says why in text, JSON and JUnit.
func TestScenarioAbortsOnUnhealthyStart(t *testing.T) {
	e := newRig(fakes.WithoutHealing())
	if err := e.cluster.StopAgent(context.Background(), "leader-0"); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Load([]byte(`name: on-a-broken-system
config:
  warmup: 2s
  cooldown: 1s
actions:
  - action: {type: pause_agent, target_id: worker-1, metadata: {duration: 5s}}
`), "broken.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := scenario.Run(context.Background(), e.svc, sc)
	if err != nil {
		t.Fatal(err)
	}
	const why = "the system was not healthy at the end of the warmup (2s) (3 probes in a row failed: leader unavailable: leader-0 stopped); no fault was injected (allow_unhealthy_start injects anyway)"
	if rep.Outcome != scenario.OutcomeAborted || rep.Report.Aborted != why {
		t.Fatalf("outcome %s, aborted %q; want aborted: %q", rep.Outcome, rep.Report.Aborted, why)
	}
	if rep.Gate.Verdict != scenario.GateFailed || !contains(rep.Gate.Reasons, "aborted: "+why) {
		t.Errorf("gate = %s %q, want failed with the reason", rep.Gate.Verdict, rep.Gate.Reasons)
	}
	if rep.Skipped != 1 || rep.Report.Landed != 0 || rep.End.Sub(rep.Start) != 2*time.Second {
		t.Errorf("skipped %d, landed %d, ended after %s; want nothing injected, the end at the warmup's", rep.Skipped, rep.Report.Landed, rep.End.Sub(rep.Start))
	}
	if a, _ := e.cluster.Agent("worker-1"); a.Status != fault.StatusRunning {
		t.Error("worker-1 was paused")
	}
	var text, junit bytes.Buffer
	rep.WriteText(&text)
	rep.WriteJUnit(&junit)
	js, _ := json.Marshal(rep)
	for name, out := range map[string]string{"text": text.String(), "junit": junit.String(), "json": string(js)} {
		if !strings.Contains(out, "aborted") || !strings.Contains(out, "leader-0 stopped") {
			t.Errorf("%s output does not say it was aborted and why:\n%s", name, out)
		}
	}

	// Told to start anyway, it injects.
	sc.Config.AllowUnhealthyStart = true
	e2 := newRig(fakes.WithoutHealing())
	e2.cluster.StopAgent(context.Background(), "leader-0")
	if rep, err := scenario.Run(context.Background(), e2.svc, sc); err != nil || rep.Outcome != scenario.OutcomeCompleted || rep.Report.Landed != 1 {
		t.Errorf("with allow_unhealthy_start: %v, outcome %s, landed %d", err, rep.Outcome, rep.Report.Landed)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A stop condition met mid-run stops injection at the sample that meets
// it, rolls back, and ends the run aborted.
func TestScenarioAbortWhen(t *testing.T) {
	const probe = 100 * time.Millisecond
	cases := []struct {
		name, abort string
		why         string
		end         time.Duration // when the run must end
	}{
		// The leader is killed at 1s and never comes back: unhealthy from
		// the sample at 1s, so 5s of it at the sample at 6s.
		{"unhealthy_for", "unhealthy_for: 5s", "abort_when.unhealthy_for: unhealthy for 5s since 1s (leader unavailable: leader-0 stopped)", 6 * time.Second},
		// 10 healthy samples (0–0.9s), then unhealthy: below 50 once there are more unhealthy than healthy ones.
		{"score_below", "score_below: 50", "abort_when.score_below: score 47.6 is below 50", 2 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newRig(fakes.WithoutHealing())
			sc, err := scenario.Load([]byte(`name: abort
config:
  probe_interval: 100ms
  abort_when: {`+c.abort+`}
  cooldown: 1m
actions:
  - delay: 1s
    action: {type: kill_leader}
  - delay: 30s
    action: {type: network_partition, target_id: worker-1}
  - action: {type: pause_agent, target_id: worker-2}
`), "abort.yaml")
			if err != nil {
				t.Fatal(err)
			}
			rep, err := scenario.Run(context.Background(), e.svc, sc)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Outcome != scenario.OutcomeAborted || rep.Report.Aborted != c.why {
				t.Errorf("outcome %s, aborted %q; want aborted: %q", rep.Outcome, rep.Report.Aborted, c.why)
			}
			if got := rep.End.Sub(rep.Start); got < c.end || got > c.end+probe {
				t.Errorf("ended at %s, want within a probe interval of %s", got, c.end)
			}
			if rep.Report.Landed != 1 || rep.Skipped != 2 {
				t.Errorf("landed %d, skipped %d: injection went on after the abort", rep.Report.Landed, rep.Skipped)
			}
			if rep.Gate.Verdict != scenario.GateFailed {
				t.Errorf("gate %s, want failed", rep.Gate.Verdict)
			}
		})
	}
}

func TestSurvivalAbortWhen(t *testing.T) {
	e := newRig(fakes.WithoutHealing())
	rep, err := e.svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: time.Hour, Interval: 10 * time.Second, Seed: 4,
		Mix: map[fault.Type]float64{fault.KillAgent: 1}, AbortWhen: engine.AbortWhen{ChecksFailed: []string{"tasks"}, UnhealthyFor: clock.Duration(time.Minute)}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ending != engine.SurvivalAborted || !rep.Stopped || !strings.HasPrefix(rep.Reason, "abort_when.") || rep.Reason != rep.Report.Aborted {
		t.Fatalf("ending %s, reason %q; want aborted by a stop condition", rep.Ending, rep.Reason)
	}
	if !strings.Contains(rep.String(), "survival: 1h0m0s of chaos every 10s, aborted (abort_when.") {
		t.Errorf("headline does not say it was aborted:\n%s", rep.String())
	}
	end := rep.End.Sub(rep.Start)
	if end >= time.Hour || rep.Ticks != int(end/(10*time.Second)) {
		t.Errorf("ended at %s after %d ticks, want early, with no tick after the abort", end, rep.Ticks)
	}
	t.Logf("aborted at %s: %s", end, rep.Reason)

	// On a broken system it injects nothing.
	e = newRig(fakes.WithoutHealing())
	e.cluster.StopAgent(context.Background(), "orchestrator-0")
	rep, err = e.svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: time.Hour, Interval: 10 * time.Second, Seed: 4})
	if err != nil || rep.Ending != engine.SurvivalAborted || rep.Actions != 0 || !strings.Contains(rep.Reason, "not healthy at the first tick") {
		t.Errorf("survival on a broken system: %v, ending %s, %d actions, reason %q", err, rep.Ending, rep.Actions, rep.Reason)
	}
}

// A probe that misses two answers in a row at the first tick (a loaded
// machine) does not abort the run: the gate looks three times.
func TestSurvivalStartGateOutlastsABlip(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk))
	const tick = 10 * time.Second
	var start time.Time
	misses := 0
	probe := func(ctx context.Context) error {
		if !start.IsZero() && clk.Now().Sub(start) >= tick && misses < 2 {
			misses++
			return errors.New("leader unavailable: leader-0: no answer within 100ms")
		}
		return c.Probe(ctx)
	}
	svc := engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(), nil, engine.WithClock(clk), engine.WithProbe(probe))
	start = clk.Now()
	rep, err := svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: time.Minute, Interval: tick, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if misses != 2 || rep.Ending != engine.SurvivalCompleted || rep.Landed == 0 {
		t.Errorf("%d probes missed; ending %s (%s), %d landed; want the run to go on past the blip", misses, rep.Ending, rep.Reason, rep.Landed)
	}
}

func TestAbortWhenNamesItsField(t *testing.T) {
	e := newRig()
	for src, want := range map[string]string{
		"  abort_when: {unhealthy: 5s}":           "config.abort_when.unhealthy: unknown key",
		"  abort_when: {score_below: 101}":        "config.abort_when.score_below: 101 is not a score from 0 to 100",
		"  abort_when: {unhealthy_for: -1s}":      "config.abort_when.unhealthy_for: negative duration",
		"  abort_when: {checks_failed: [ledger]}": `config.abort_when.checks_failed[0]: the system has no check "ledger" (it has tasks, memory, dag)`,
	} {
		sc, err := scenario.Load([]byte("name: x\nconfig:\n"+src+"\nactions:\n  - action: {type: kill_leader}\n"), "x.yaml")
		if err == nil {
			_, err = scenario.Run(context.Background(), e.svc, sc)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
	if _, err := e.svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: time.Hour, AbortWhen: engine.AbortWhen{ChecksFailed: []string{"x"}}}); err == nil ||
		!strings.Contains(err.Error(), `survival: abort_when.checks_failed[0]: the system has no check "x"`) {
		t.Errorf("survival: %v", err)
	}
}
