package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
)

func TestSurviveVirtualDay(t *testing.T) {
	code, out, errOut := cli(t, "survive", "--duration", "24h", "--seed", "7", "--min-grade", "C")
	if code != exitPass {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"survival: 24h0m0s of chaos every 10s, completed; 8639 actions", "arena report: seed 7, virtual time, 24h0m0s observed", "worst 20 of"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if errOut != "" {
		t.Errorf("stderr = %q, want nothing (no terminal, no progress bar)", errOut)
	}
}

func TestSurviveJSONIsReproducible(t *testing.T) {
	args := []string{"survive", "--duration", "1h", "--interval", "5s", "--seed", "3", "--mix", "kill_agent=2,llm_failure=1", "--json"}
	_, a, _ := cli(t, args...)
	_, b, _ := cli(t, args...)
	var ra, rb engine.SurvivalReport
	if err := json.Unmarshal([]byte(a), &ra); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &rb); err != nil {
		t.Fatal(err)
	}
	ra.WallTime, rb.WallTime = 0, 0
	ja, _ := json.Marshal(ra)
	jb, _ := json.Marshal(rb)
	if string(ja) != string(jb) {
		t.Error("the same seed gave different survival reports")
	}
	if len(ra.ByType) != 2 || ra.ByType[fault.KillAgent].Attempted == 0 || ra.Config.Seed != 3 {
		t.Errorf("by type = %+v seed %d, want kill_agent and llm_failure only, seed 3", ra.ByType, ra.Config.Seed)
	}
}

func TestSurviveGateAndBadInput(t *testing.T) {
	code, _, errOut := cli(t, "survive", "--duration", "10m", "--seed", "2", "--workers", "1", "--min-score", "99.9")
	if code != exitGateFailed || !strings.Contains(errOut, "survival failed: [score") || !strings.Contains(errOut, "rerun with: arena survive --duration=10m0s --interval=10s --min-score=99.9 --workers=1 --seed=2") {
		t.Errorf("gate: exit %d, stderr %q", code, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"survive", "--mix", "kill_agnet=1"}, `arena: --mix: unknown action type "kill_agnet"`},
		{[]string{"survive", "--min-grade", "E"}, `arena: --min-grade: unknown grade "E"`},
		{[]string{"survive", "--interval", "2h"}, "arena: survival: interval: 2h0m0s is not shorter than the duration 30m0s"},
		{[]string{"survive", "--progress", "sometimes"}, `arena: --progress: "sometimes" is not auto, always or never`},
		{[]string{"survive", "--duration", "soon"}, `arena: invalid argument "soon" for "--duration"`},
	} {
		code, _, errOut := cli(t, tc.args...)
		if code != exitBadInput || !strings.HasPrefix(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q…", tc.args, code, errOut, tc.want)
		}
	}
}

// TestSurviveInterruptedPrintsTheReport: a survival run interrupted while
// it runs still prints its report. The interrupt comes once the progress
// bar shows the run going, not after a guess at how long starting takes.
func TestSurviveInterruptedPrintsTheReport(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := newWatchWriter(" actions, score ") // the bar's description of a running survival
	go func() {
		select {
		case <-stderr.seen:
		case <-ctx.Done(): // the run ended first
		case <-time.After(time.Minute): // a deadline: the bar draws every 100ms
		}
		cancel()
	}()
	var stdout bytes.Buffer
	code := run(ctx, []string{"survive", "--duration", "720h", "--seed", "5", "--progress", "always"}, &stdout, stderr)
	out, errOut := stdout.String(), stderr.String()
	select {
	case <-stderr.seen:
	default:
		t.Errorf("the progress bar never showed the survival running; stderr %q", errOut)
	}
	if code != exitInfra || !strings.Contains(out, "survival: 720h0m0s of chaos every 10s, interrupted (context canceled) after ") || !strings.Contains(out, "arena report: seed 5") {
		t.Errorf("exit %d, report %q", code, out)
	}
	if !strings.Contains(errOut, "survival did not finish: context canceled (seed 5)") {
		t.Errorf("stderr = %q", errOut)
	}
}

// watchWriter keeps what is written to it, and closes seen once that
// holds marker. Safe for concurrent use.
type watchWriter struct {
	marker string
	seen   chan struct{}
	mu     sync.Mutex
	buf    bytes.Buffer
	closed bool
}

func newWatchWriter(marker string) *watchWriter {
	return &watchWriter{marker: marker, seen: make(chan struct{})}
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if !w.closed && strings.Contains(w.buf.String(), w.marker) {
		w.closed = true
		close(w.seen)
	}
	return n, err
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
