package arena_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena"
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
		_, err := arena.LoadScenario(data, "amp.yaml")
		took := time.Since(start)
		var es arena.ScenarioErrors
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
	_, err := arena.LoadScenario([]byte(b.String()), "many.yaml")
	var es arena.ScenarioErrors
	if !errors.As(err, &es) || len(es) != arena.MaxScenarioErrors {
		t.Fatalf("LoadScenario(%d bad steps) = %d problems, want %d", steps, len(es), arena.MaxScenarioErrors)
	}
	if got, want := es[len(es)-1].Error(), fmt.Sprintf("many.yaml: … and %d more problems", steps-arena.MaxScenarioErrors+1); got != want {
		t.Errorf("last problem = %q, want %q", got, want)
	}
	if got := es[0].Error(); !strings.HasPrefix(got, "many.yaml:3:") {
		t.Errorf("first problem = %q, want the first step's", got)
	}
}

func TestAliasCycleIsAnError(t *testing.T) {
	_, err := arena.LoadScenario([]byte("name: x\nactions: &a [*a]\n"), "cycle.yaml")
	if err == nil {
		t.Fatal("LoadScenario(alias cycle) = nil error")
	}
}
