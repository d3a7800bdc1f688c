package htmlreport

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/scenarios"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// service is a seeded fake cluster in virtual time.
func service(seed uint64, opts ...fakes.Option) *engine.Service {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(append([]fakes.Option{fakes.WithClock(clk), fakes.WithSeed(seed)}, opts...)...)
	return engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(), nil,
		engine.WithClock(clk), engine.WithSeed(seed), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...))
}

func scenarioReport(t testing.TB, name string, seed uint64, opts ...fakes.Option) *scenario.Report {
	t.Helper()
	sc, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	sc.Config.Seed = seed
	rep, err := scenario.Run(context.Background(), service(seed, opts...), sc)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func survivalReport(t testing.TB) *engine.SurvivalReport {
	t.Helper()
	rep, err := service(5).RunSurvival(context.Background(), engine.SurvivalConfig{Duration: 20 * time.Minute, Interval: 15 * time.Second, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// selfContained checks that a page names no URL: nothing to fetch, no
// namespace URIs, no script.
func selfContained(t *testing.T, page string) {
	t.Helper()
	for _, bad := range []string{"http:", "https:", "//", "<script", "<link rel=\"stylesheet\"", "@import", "url(", "xmlns", "<?xml"} {
		if i := strings.Index(page, bad); i >= 0 {
			t.Errorf("page holds %q: …%s…", bad, page[max(0, i-60):min(len(page), i+60)])
		}
	}
	for _, attr := range regexp.MustCompile(`(?i)\b(?:src|href)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(attr[1], "data:") {
			t.Errorf("page refers to %q", attr[1])
		}
	}
}

func TestWriteScenario(t *testing.T) {
	rep := scenarioReport(t, "everything-at-once", 7)
	var buf bytes.Buffer
	if err := WriteScenario(&buf, rep); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	selfContained(t, page)
	for _, want := range []string{
		"<h1>everything-at-once</h1>", `<span class="verdict good">passed</span>`,
		`<div class="num" id="score">` + fmt.Sprintf("%.1f", rep.Score.Total) + `</div>`,
		`id="grade">` + string(rep.Score.Grade) + `<`,
		"seed <b>7</b>", "virtual time", `<svg class="chart"`, `id="gate"`, `id="steps"`, `id="faults"`,
	} {
		if !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if got, want := strings.Count(page, `<tr><td class="num">`)-len(rep.Steps), len(rep.Faults); got != want {
		t.Errorf("fault rows = %d, want %d", got, want)
	}
	chart := page[strings.Index(page, "<svg"):strings.Index(page, "</svg>")]
	if n := strings.Count(chart, "<path"); n < 10 {
		t.Errorf("chart has %d paths, want the axes, grid, health line and markers", n)
	}
	for _, label := range []string{">healthy<", ">unhealthy<", ">time since start (s)<"} {
		if !strings.Contains(chart, label) {
			t.Errorf("chart lacks the text %s", label)
		}
	}
	if strings.Contains(chart, "font-family") {
		t.Error("chart text names a font; the page's CSS should choose it")
	}
}

func TestWriteScenarioFailed(t *testing.T) {
	rep := scenarioReport(t, "leader-failover", 3, fakes.WithoutHealing())
	var buf bytes.Buffer
	if err := WriteScenario(&buf, rep); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`<span class="verdict">failed</span>`, `<ul class="reasons">`} {
		if !strings.Contains(page, want) {
			t.Errorf("failed run: page lacks %q", want)
		}
	}
	if chart := page[strings.Index(page, "<svg"):strings.Index(page, "</svg>")]; !strings.Contains(strings.ToLower(chart), "#dc2626") {
		t.Error("failed run: the chart has no red marker for the unrecovered fault")
	}
}

func TestWriteSurvival(t *testing.T) {
	rep := survivalReport(t)
	path := filepath.Join(t.TempDir(), "survival.html")
	if err := WriteFile(path, func(w io.Writer) error { return WriteSurvival(w, rep) }); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	selfContained(t, page)
	for _, want := range []string{"<h1>survival run</h1>", `id="by-type"`, ">time since start (min)<", "seed <b>5</b>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for typ := range rep.ByType {
		if !strings.Contains(page, "<td>"+string(typ)+"</td>") {
			t.Errorf("by-type table lacks %s", typ)
		}
	}
}

// TestUnmeasured: a run with no probe and no fault has no grade and no
// health line, and the page says so.
func TestUnmeasured(t *testing.T) {
	now := clock.VirtualEpoch()
	rep := &scenario.Report{Scenario: "empty", Gate: scenario.GateResult{Verdict: scenario.GateInconclusive},
		Report: &engine.Report{Start: now, End: now.Add(time.Second)}}
	var buf bytes.Buffer
	if err := WriteScenario(&buf, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"no grade", "nothing was measured", "not measured", "No probe samples", "No fault landed", "<svg"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if err := WriteScenario(&buf, &scenario.Report{}); err == nil {
		t.Error("a scenario report without a run report: no error")
	}
}

func TestRowsCap(t *testing.T) {
	now := clock.VirtualEpoch()
	r := &engine.Report{Start: now, End: now.Add(time.Hour)}
	for i := range MaxRows + 5 {
		r.Faults = append(r.Faults, engine.FaultOutcome{At: clock.Duration(time.Duration(i) * time.Second), Action: fault.Action{Type: fault.KillAgent, TargetID: "w"}})
	}
	var buf bytes.Buffer
	if err := WriteScenario(&buf, &scenario.Report{Scenario: "many", Report: r}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "… 5 more") {
		t.Error("a table over MaxRows does not say how many rows it left out")
	}
}
