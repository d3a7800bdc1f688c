package shrink_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/shrink"
)

// kept is what ReadSurvival keeps of a report, comparable.
func kept(rep *engine.SurvivalReport) map[string]any {
	m := map[string]any{"config": rep.Config, "events": rep.Events, "dropped": rep.Dropped, "actions": rep.Actions,
		"ending": rep.Ending, "stopped": rep.Stopped}
	if rep.Report != nil {
		m["run"] = []any{rep.Seed, rep.Virtual, rep.Clock, rep.Start.Format(time.RFC3339Nano), rep.End.Format(time.RFC3339Nano)}
	}
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// TestReadSurvival: a report read by ReadSurvival keeps what shrinking
// reads, as json.Unmarshal reads it, and becomes the same scenario.
func TestReadSurvival(t *testing.T) {
	svc, _ := fakeSystem()(t.Context(), 4)
	run, err := svc.RunSurvival(t.Context(), engine.SurvivalConfig{Duration: 30 * time.Minute, Interval: 2 * time.Second, Seed: 4, TimelineCap: 100})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var want engine.SurvivalReport
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	got, err := shrink.ReadSurvival(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(kept(&want), kept(got)); diff != "" {
		t.Errorf("ReadSurvival (-Unmarshal +ReadSurvival):\n%s", diff)
	}
	if got.Dropped == 0 || len(got.Events) != 100 || got.Faults != nil || got.Timeline != nil {
		t.Errorf("dropped %d, %d events, faults %d, timeline %d: want the listed actions only", got.Dropped, len(got.Events), len(got.Faults), len(got.Timeline))
	}
	want.Dropped, got.Dropped = 0, 0 // as if complete, to compare the scenarios
	a, errA := shrink.FromSurvival(&want, scenario.Gate{Consistent: true})
	b, errB := shrink.FromSurvival(got, scenario.Gate{Consistent: true})
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if diff := cmp.Diff(string(ja), string(jb)); diff != "" {
		t.Errorf("FromSurvival (-Unmarshal +ReadSurvival):\n%s", diff)
	}
}

// eventsJSON is a report's JSON listing n actions, landed ones when landed.
func eventsJSON(n int, landed bool) string {
	var b strings.Builder
	b.WriteString(`{"config": {}, "report": {}, "events": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"at": "%ds", "type": "kill_agent", "target_id": "worker-1", "success": %t}`, i, landed)
	}
	b.WriteString(`]}`)
	return b.String()
}

// TestReadSurvivalRefuses: malformed reports, numbers that are not finite
// (wherever a number is read), and more landed faults than a scenario may
// have, refused at the first one too many.
func TestReadSurvivalRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, "survival report: unexpected EOF"},
		{`[]`, "survival report: want an object, got ["},
		{`{"config": {}, "events": []}`, "survival report: no report"},
		{`{"config": {}, "events": [], "report": null}`, "survival report: report: want an object, got null"},
		{`{"config": {}, "events": [], "report": {}} {}`, "survival report: data after the report"},
		{`{"config": {}, "events": [], "report": {"faults": [1, 2`, "survival report: report: faults: unexpected EOF"},
		{`{"config": {}, "events": {}, "report": {}}`, "survival report: events: want an array, got {"},
		{`{"config": {"bogus": 1}, "events": [], "report": {}}`, `survival report: config: json: unknown field "bogus"`},
		{`{"config": {"duration": "NaN"}, "events": [], "report": {}}`, "survival report: config: NaN seconds is out of range"},
		{`{"config": {"interval": "+Inf"}, "events": [], "report": {}}`, "survival report: config: +Inf seconds is out of range"},
		{`{"config": {"mix": {"kill_agent": 1e999}}, "events": [], "report": {}}`, "survival report: config: json: cannot unmarshal number 1e999"},
		{`{"config": {}, "events": [{"at": "NaN"}], "report": {}}`, "survival report: events: [0]: NaN seconds is out of range"},
		{`{"config": {}, "events": [{"at": 1e999}], "report": {}}`, "survival report: events: [0]:"},
		{`{"config": {}, "events": [{"lifetime": "-Inf"}], "report": {}}`, "survival report: events: [0]: -Inf seconds is out of range"},
		{`{"config": {}, "events": [{"metadata": {"rate": 1e999}}], "report": {}}`, "survival report: events: [0]: json: cannot unmarshal number 1e999"},
		{`{"config": {"abort_when": {"score_below": "NaN"}}, "events": [], "report": {}}`, "survival report: config: json: cannot unmarshal string"},
		{`{"config": {}, "events": [], "report": {"seed": 1e999}}`, "survival report: report: seed: json: cannot unmarshal number 1e999"},
		{eventsJSON(scenario.MaxSteps+1, true), "survival report: events: more than 10000 faults landed, more than a scenario may have"},
	} {
		rep, err := shrink.ReadSurvival(strings.NewReader(tc.in))
		if rep != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
			in := tc.in
			if len(in) > 80 {
				in = in[:80] + "…"
			}
			t.Errorf("ReadSurvival(%q) = %v, %v; want %q", in, rep, err, tc.want)
		}
	}
	if rep, err := shrink.ReadSurvival(strings.NewReader(eventsJSON(scenario.MaxSteps, true))); err != nil || len(rep.Events) != scenario.MaxSteps {
		t.Errorf("ReadSurvival of %d landed faults = %v; want them all", scenario.MaxSteps, err)
	}
}

// TestReadSurvivalStreams: the reader reads a report as it comes, and
// stops at the first landed fault too many without reading the rest.
func TestReadSurvivalStreams(t *testing.T) {
	r, w := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.WriteString(w, strings.TrimSuffix(eventsJSON(scenario.MaxSteps+1, true), "]}")+",")
		_ = w.CloseWithError(fmt.Errorf("read past the fault too many"))
	}()
	_, err := shrink.ReadSurvival(r)
	r.Close()
	<-done
	if err == nil || !strings.Contains(err.Error(), "more than 10000 faults landed") {
		t.Errorf("ReadSurvival = %v, want it to stop at the fault too many", err)
	}
}

// FuzzReadSurvival: whatever the bytes, ReadSurvival returns an error or
// a report with its run, within the bounds, that reads back the same once
// written.
func FuzzReadSurvival(f *testing.F) {
	for _, s := range []string{
		`{"config": {"duration": "1h", "seed": 2}, "events": [{"at": "2s", "type": "kill_agent", "target_id": "w", "success": true, "metadata": {"x": [1, {"y": null}]}}], "report": {"seed": 2, "virtual": true, "start": "2025-01-01T00:00:00Z", "end": "2025-01-01T01:00:00Z", "faults": [{}, []]}, "events_dropped": 3, "actions": 4, "ending": "completed"}`,
		`{"config": {}, "events": null, "report": {}, "by_type": {"kill_agent": {"attempted": 1}}, "warnings": ["a"]}`,
		`{"config": {"duration": "NaN"}, "events": [], "report": {}}`,
		`{"config": {}, "events": [{"at": 1e999}], "report": {}}`,
		`{"config": {}, "events": [], "report": {"end": "10000-01-01T00:00:00Z"}}`,
		`{"events": [], "events": [{"success": true}], "config": {}, "report": {}, "report": {}}`,
		`{"config": {}, "events": [[[[]]]], "report": {}}`,
		`{"config": {}, "events": [], "report": {"timeline": [[[[[[[[[[]]]]]]]]]]}}`,
		"",
		"{",
		`"x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := shrink.ReadSurvival(bytes.NewReader(data))
		if err != nil {
			if rep != nil {
				t.Fatalf("an error (%v) with a report", err)
			}
			return
		}
		if rep.Report == nil {
			t.Fatal("no run report, no error")
		}
		landed := 0
		for _, ev := range rep.Events {
			if ev.Success {
				landed++
			}
		}
		if landed > scenario.MaxSteps || len(rep.Events) > engine.MaxListCap {
			t.Fatalf("%d events, %d landed: beyond the bounds", len(rep.Events), landed)
		}
		out, err := json.Marshal(rep)
		if err != nil {
			return // a time Go reads and does not write (year 10000)
		}
		again, err := shrink.ReadSurvival(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("the report written does not read back: %v\n%s", err, out)
		}
		if diff := cmp.Diff(kept(rep), kept(again)); diff != "" {
			t.Fatalf("read back differs (-first +again):\n%s", diff)
		}
	})
}
