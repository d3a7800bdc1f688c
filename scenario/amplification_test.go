package scenario_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// aliasedSteps is issue 14's amplification file: one step with 20 unknown
// keys, aliased n times (n = 10,000 gives about 70 KB).
func aliasedSteps(n int) []byte {
	var b strings.Builder
	b.WriteString("name: amp\nactions:\n  - &a\n    action: {type: kill_agent, target_id: worker-1}\n")
	for i := range 20 {
		fmt.Fprintf(&b, "    bogus%02d: 1\n", i)
	}
	for range n {
		b.WriteString("  - *a\n")
	}
	return []byte(b.String())
}

func TestAliasesDoNotAmplifyErrors(t *testing.T) {
	for _, tc := range []struct {
		aliases  int
		problems int // distinct problems reported
	}{
		{aliases: 9_999, problems: 1}, // refused before the walk: too many nodes
		{aliases: 1_000, problems: 20},
	} {
		data := aliasedSteps(tc.aliases)
		start := time.Now()
		_, err := scenario.Load(data, "amp.yaml")
		took := time.Since(start)
		var es scenario.Errors
		if !errors.As(err, &es) {
			t.Fatalf("LoadScenario(%d aliases) = %v, want ScenarioErrors", tc.aliases, err)
		}
		t.Logf("%d aliases (%d bytes): %d problems, %d bytes of errors, in %s", tc.aliases, len(data), len(es), len(err.Error()), took)
		if len(es) != tc.problems || len(err.Error()) > 8<<10 {
			t.Errorf("LoadScenario(%d aliases): %d problems, %d bytes, want %d problems:\n%.2000s", tc.aliases, len(es), len(err.Error()), tc.problems, err)
		}
	}
}

func TestScenarioErrorsAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: many\nactions:\n")
	const steps = 150
	for i := range steps {
		fmt.Fprintf(&b, "  - {action: {type: kill_leader}, bogus%d: 1}\n", i)
	}
	_, err := scenario.Load([]byte(b.String()), "many.yaml")
	var es scenario.Errors
	if !errors.As(err, &es) || len(es) != scenario.MaxErrors {
		t.Fatalf("LoadScenario(%d bad steps) = %d problems, want %d", steps, len(es), scenario.MaxErrors)
	}
	if got, want := es[len(es)-1].Error(), fmt.Sprintf("many.yaml: … and %d more problems", steps-scenario.MaxErrors+1); got != want {
		t.Errorf("last problem = %q, want %q", got, want)
	}
	if got := es[0].Error(); !strings.HasPrefix(got, "many.yaml:3:") {
		t.Errorf("first problem = %q, want the first step's", got)
	}
}

func TestAliasCycleIsAnError(t *testing.T) {
	_, err := scenario.Load([]byte("name: x\nactions: &a [*a]\n"), "cycle.yaml")
	if err == nil {
		t.Fatal("LoadScenario(alias cycle) = nil error")
	}
}

// aliasBomb is issue 26's bodies: one value of size bytes, aliased n
// times; into: "type" (each alias an invalid action type) or "tags" (a
// valid scenario whose tags repeat its description).
func aliasBomb(size, n int, into string) []byte {
	var b strings.Builder
	big := strings.Repeat("x", size)
	switch into {
	case "type":
		b.WriteString("name: bomb\nx: &v " + big + "\nactions:\n")
		for range n {
			b.WriteString("  - action: {type: *v}\n")
		}
	case "tags":
		b.WriteString("name: bomb\ndescription: &v " + big + "\ntags:\n")
		for range n {
			b.WriteString("  - *v\n")
		}
		b.WriteString("actions:\n  - action: {type: kill_leader}\n")
	}
	return []byte(b.String())
}

// Output is bounded in bytes: a 1 MB value aliased thousands of times
// answered 98 MB of errors (into type:) or a 1 GB report (into tags: of a
// valid scenario) before issue 26; a scenario whose text with aliases
// expanded exceeds scenario.MaxExpanded is refused now, at once and in a
// few bytes.
func TestAliasesCountEveryTimeTheyRepeat(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"1 MB into type: 2,000 times", aliasBomb(1_000_000, 2_000, "type")},
		{"1 MB into tags: 1,000 times", aliasBomb(1_000_000, 1_000, "tags")},
		{"1 KB into tags: 2,000 times", aliasBomb(1_000, 2_000, "tags")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scenario.Load(tc.data, "bomb.yaml")
			want := fmt.Sprintf("bomb.yaml:1:1: more than %d bytes of text after expanding aliases", scenario.MaxExpanded)
			if err == nil || !strings.HasPrefix(err.Error(), want) || len(err.Error()) > 1<<10 {
				t.Errorf("LoadScenario(%d bytes) = %.300v (%d bytes), want %q", len(tc.data), err, len(fmt.Sprint(err)), want)
			}
		})
	}
	// Sharing is fine: a value aliased where it is printed no more than a
	// file of the same size could hold.
	if _, err := scenario.Load(aliasBomb(200, 2_000, "tags"), "share.yaml"); err != nil {
		t.Errorf("LoadScenario(200-byte tags aliased 2,000 times) = %v, want it accepted", err)
	}
}

// Problems are bounded in bytes before they are formatted: a value is
// quoted to 64 bytes, a problem is at most 1 KiB, the list at most
// scenario.MaxErrorBytes however many problems quote how long a value.
func TestScenarioErrorsAreBoundedInBytes(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: long\nactions:\n")
	long := strings.Repeat("y", 5_000)
	for i := range 90 {
		fmt.Fprintf(&b, "  - label: l%d\n    depends_on: [%s%d]\n    action: {type: %s%d}\n", i, long, i, long, i)
	}
	data := []byte(b.String())
	_, err := scenario.Load(data, "long.yaml")
	var es scenario.Errors
	if !errors.As(err, &es) {
		t.Fatalf("LoadScenario = %v, want ScenarioErrors", err)
	}
	if n := len(err.Error()); n > scenario.MaxErrorBytes {
		t.Errorf("errors of %d bytes, want at most %d", n, scenario.MaxErrorBytes)
	}
	for _, e := range es {
		if len(e.Error()) > 2<<10 {
			t.Errorf("a problem of %d bytes: %.200s…", len(e.Error()), e.Error())
		}
	}
	if last := es[len(es)-1].Msg; !strings.HasPrefix(last, "… and ") {
		t.Errorf("last problem = %q, want the count of those left out", last)
	}
	t.Logf("%d bytes of YAML: %d problems, %d bytes of errors", len(data), len(es), len(err.Error()))
}

// Step labels were printed raw: an ESC drove the terminal, a newline or a
// U+202E forged a report line. A label (and a tag) is one line of plain
// text now, and whatever a report prints from outside is escaped.
func TestLabelsArePlainText(t *testing.T) {
	for label, want := range map[string]string{
		"\x1b[31mred":     `actions[0].label: "\x1b[31mred" contains the control character U+001B`,
		"ok\nPASS forged": `actions[0].label: "ok\nPASS forged" contains the control character U+000A`,
		"a\u202edcba":     `actions[0].label: "a\u202edcba" contains U+202E, a bidirectional control`,
	} {
		sc := &scenario.Scenario{Name: "labels", Actions: []scenario.Step{{Label: label, Action: fault.Action{Type: fault.KillLeader}}}}
		if err := scenario.Validate(sc); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ValidateScenario(label %q) = %v, want %q", label, err, want)
		}
	}
	sc := &scenario.Scenario{Name: "tags", Tags: []string{"x\x1by"}, Actions: []scenario.Step{{Action: fault.Action{Type: fault.KillLeader}}}}
	if err := scenario.Validate(sc); err == nil || !strings.Contains(err.Error(), "tags[0]:") {
		t.Errorf("ValidateScenario(tag with ESC) = %v, want tags[0] refused", err)
	}
}

func TestReportTextEscapesWhatItPrints(t *testing.T) {
	rep := &scenario.Report{
		Scenario: "esc", Description: "first\x1b[2J line\nsecond",
		Steps: []scenario.StepReport{{Index: 0, Label: "a", Type: fault.KillAgent, Target: "w",
			Status: scenario.StepFailed, Reason: "runtime said \x1b]0;pwned\x07 and \u202egnol\nPASS"}},
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07\u202e") || strings.Contains(out, "\nPASS") {
		t.Errorf("WriteText printed a control character or a forged line:\n%q", out)
	}
	for _, want := range []string{`first\x1b[2J line`, `runtime said \x1b]0;pwned\x07 and \u202egnol\x0aPASS`} {
		if !strings.Contains(out, want) {
			t.Errorf("WriteText = %q, want %q in it", out, want)
		}
	}
}
