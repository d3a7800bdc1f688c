package htmlreport

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
)

// A violation is shown with its details, its operations beside the faults
// active then, and a link to its visualization; an undecided check is in a
// table of its own, with how far it got, and not among the failed ones.
func TestFindings(t *testing.T) {
	rep := scenarioReport(t, "leader-failover", 1)
	at := rep.Start.Add(3 * time.Second)
	rep.Report.Checks = append(rep.Report.Checks,
		engine.CheckResult{Name: "kv linearizable", At: clock.Duration(5 * time.Second), Error: `key "k7" is not linearizable`,
			Violation: &fault.Violation{Summary: `key "k7" is not linearizable`, Details: []string{"longest linearizable prefix found: 2 of 3 operations"},
				Ops:   []fault.ViolationOp{{Client: 3, Op: "get(k7) = 1 — no order explains it", Call: at, Return: at.Add(time.Millisecond), At: clock.Duration(3 * time.Second), Faults: []string{"kill_leader on leader-0 at 2s"}}},
				Files: []string{"/reports/kv_linearizable-123.html"}}},
		engine.CheckResult{Name: "hard", At: clock.Duration(5 * time.Second), Undecided: true, Error: "undecided within its 1s budget: decided 0 of 81 operations"})
	rep.Report.ChecksUndecided = 1
	var b bytes.Buffer
	if err := WriteScenario(&b, rep); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	failedTable := page[strings.Index(page, `id="failed-checks"`):strings.Index(page, `id="undecided-checks"`)]
	for _, want := range []string{
		"<li>longest linearizable prefix found: 2 of 3 operations</li>",
		"<code>get(k7) = 1 — no order explains it</code>",
		"kill_leader on leader-0 at 2s<br>",
		`visualization: <a href="/reports/kv_linearizable-123.html">/reports/kv_linearizable-123.html</a>`,
	} {
		if !strings.Contains(failedTable, want) {
			t.Errorf("failed checks lack %q:\n%s", want, failedTable)
		}
	}
	if strings.Contains(failedTable, "hard") {
		t.Errorf("the undecided check is listed as failed:\n%s", failedTable)
	}
	if !strings.Contains(page[strings.Index(page, `id="undecided-checks"`):], "<code>undecided within its 1s budget: decided 0 of 81 operations</code>") {
		t.Errorf("the undecided check is not listed with how far it got")
	}
}
