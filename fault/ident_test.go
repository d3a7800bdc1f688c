package fault_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

func TestIdentifiersRefuseHiddenCharacters(t *testing.T) {
	for _, tc := range []struct{ id, want string }{
		{"worker-1", ""},
		{"wörker-1", ""}, // letters of any script are fine
		{"worker 1", "contains white space or control characters"},
		{"worker\x1b[31m", "contains white space or control characters"},
		{"worker\xff", "is not valid UTF-8"},
		{"worker\u202e1", "contains U+202E, a bidirectional control"},
		{"worker\u20661", "contains U+2066, a bidirectional control"},
		{"worker\u200f1", "contains U+200F, a bidirectional control"},
		{"worker\u200b1", "contains U+200B, an invisible character"},
		{"worker\ufeff1", "contains U+FEFF, an invisible character"},
		{"worker\u20601", "contains U+2060, an invisible character"},
		{"worker\u00ad1", "contains U+00AD, a format character"},
	} {
		if got := fault.IdentifierProblem(tc.id); got != tc.want {
			t.Errorf("IdentifierProblem(%q) = %q, want %q", tc.id, got, tc.want)
		}
		err := fault.Action{Type: fault.KillAgent, TargetID: tc.id}.Validate()
		var ve *fault.ValidationError
		if tc.want == "" && err != nil || tc.want != "" && (!errors.As(err, &ve) || ve.Field != "target_id" || !strings.Contains(ve.Msg, tc.want)) {
			t.Errorf("Validate(target_id %q) = %v, want %q", tc.id, err, tc.want)
		}
	}
}

func TestScenarioNamesAreOneLineOfText(t *testing.T) {
	for name, want := range map[string]string{
		`"x\n\e[31mPASSED"`: `n.yaml:1:1: name: "x\n\x1b[31mPASSED" contains the control character U+000A`,
		`"x\e[31m"`:         `contains the control character U+001B`,
		`"a\u202eb"`:        `contains U+202E, a bidirectional control`,
		`"a\u2028b"`:        `contains the control character U+2028`,
	} {
		_, err := scenario.Load([]byte("name: "+name+"\nactions:\n  - action: {type: kill_leader}\n"), "n.yaml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadScenario(name %s) = %v, want %q", name, err, want)
		}
	}
	if _, err := scenario.Load([]byte("name: leader failover — día 2\nactions:\n  - action: {type: kill_leader}\n"), "n.yaml"); err != nil {
		t.Errorf("a name with spaces and accents: %v", err)
	}
}

// The ASCII fast path says what the Unicode rules say, for every ASCII
// character alone, between others, and before a non-ASCII one.
func TestIdentifierProblemASCII(t *testing.T) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		bad := r <= ' ' || unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '/' || r == '\\'
		for _, id := range []string{string(r), "a" + string(r) + "b", string(r) + "é"} {
			if id == "." {
				continue // a path segment; see TestIdentifiersAreNoPaths
			}
			if got := fault.IdentifierProblem(id); (got != "") != bad {
				t.Errorf("IdentifierProblem(%q) = %q, want a problem: %v", id, got, bad)
			}
		}
	}
}

// Invalid UTF-8 is named first, wherever it is and whatever else is wrong:
// the fast path must not answer before the whole string was checked.
func TestIdentifierProblemInvalidUTF8First(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"a", "Z", " ", "\x01", "\x7f", "\xff", "\xc3", "é", "\u200b", "-"}
	for range 20_000 {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		id := b.String()
		if got := fault.IdentifierProblem(id); !utf8.ValidString(id) && got != "is not valid UTF-8" {
			t.Fatalf("IdentifierProblem(%q) = %q, want the invalid UTF-8 named", id, got)
		}
	}
}

// Runtimes put IDs in URL paths (a pod's proxy, an agent's fault-control
// API): ../../etc/passwd passed as an ID before issue 26.
func TestIdentifiersAreNoPaths(t *testing.T) {
	for _, id := range []string{"../../etc/passwd", "..", ".", "a/b", `..\x`, "é/"} {
		if fault.IdentifierProblem(id) == "" {
			t.Errorf("IdentifierProblem(%q) = \"\", want a problem", id)
		}
	}
	for _, id := range []string{"worker-1", "a.b", "...", "..a", "type:worker"} {
		if p := fault.IdentifierProblem(id); p != "" {
			t.Errorf("IdentifierProblem(%q) = %q, want none", id, p)
		}
	}
	err := fault.Action{Type: fault.KillAgent, TargetID: "../../etc/passwd"}.Validate()
	if err == nil || !strings.Contains(err.Error(), "target_id: \"../../etc/passwd\" contains a path separator") {
		t.Errorf("Validate(target ../../etc/passwd) = %v", err)
	}
}
