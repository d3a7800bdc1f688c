package agentapi_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/fault"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Durations use arena's one encoding: a Go duration string, and a bare
// number read as seconds.
func TestDuration(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{`"1.5s"`, 1500 * time.Millisecond},
		{`2`, 2 * time.Second},
		{`0.25`, 250 * time.Millisecond},
	} {
		var f agentapi.Fault
		if err := json.Unmarshal([]byte(`{"kind":"tool_timeout","timeout":`+tt.in+`}`), &f); err != nil {
			t.Fatalf("decode %s: %v", tt.in, err)
		}
		if f.Timeout.D() != tt.want {
			t.Errorf("timeout %s = %s, want %s", tt.in, f.Timeout.D(), tt.want)
		}
	}
	for _, bad := range []string{`"soon"`, `true`, `1e300`, `-9.3e9`} {
		var d agentapi.Duration
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("decode %s: no error", bad)
		}
	}
	b, _ := json.Marshal(agentapi.Fault{Kind: agentapi.KindToolTimeout, Timeout: agentapi.Duration(5 * time.Second)})
	if want := `{"kind":"tool_timeout","timeout":"5s"}`; string(b) != want {
		t.Errorf("encode = %s, want %s", b, want)
	}
}

// TestKindsAreDocumented: every kind of the contract is in the package's
// list of kinds, and in docs/fault-control.md's table and its examples of
// request bodies.
func TestKindsAreDocumented(t *testing.T) {
	src, err := os.ReadFile("agentapi.go")
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile("../docs/fault-control.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range agentapi.Kinds() {
		if !regexp.MustCompile(`(?m)^//\t` + kind + ` `).Match(src) {
			t.Errorf("the package documentation does not list the kind %s", kind)
		}
		if !strings.Contains(string(md), "| `"+kind+"` |") {
			t.Errorf("docs/fault-control.md has no row for the kind %s", kind)
		}
		if !strings.Contains(string(md), `{"kind": "`+kind+`"`) {
			t.Errorf("docs/fault-control.md has no example body of the kind %s", kind)
		}
	}
}

// TestKindsAreArenaTypes: the kinds of the contract are arena's built-in
// fault types of the same name, but pause (which stands for pause_agent
// where a runtime cannot freeze the agent): a kind renamed on one side and
// not the other fails it.
func TestKindsAreArenaTypes(t *testing.T) {
	for _, kind := range agentapi.Kinds() {
		_, builtin := fault.Lookup(fault.Type(kind))
		if builtin == (kind == agentapi.KindPause) {
			t.Errorf("kind %s: a built-in fault type of arena: %t, want %t", kind, builtin, kind != agentapi.KindPause)
		}
	}
	if _, ok := fault.Lookup(fault.PauseAgent); !ok {
		t.Errorf("%s, which the kind %s stands for, is no built-in fault type", fault.PauseAgent, agentapi.KindPause)
	}
}
