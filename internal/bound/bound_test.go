package bound_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"go.uber.org/goleak"

	"github.com/ares-arena/arena/internal/bound"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestQuoteAndCut(t *testing.T) {
	long := strings.Repeat("é", bound.MaxQuoted) // 2 bytes a rune: cut mid-rune would split one
	for _, tc := range []struct {
		name, got, want string
	}{
		{"short quoted whole", bound.Quote("a\tb"), `"a\tb"`},
		{"long quoted cut on a rune", bound.Quote(long), `"` + strings.Repeat("é", bound.MaxQuoted/2) + `"…`},
		{"cut marks the cut", bound.Cut("abcdefgh", 6), "abc…"},
		{"cut leaves short text", bound.Cut("abc", 6), "abc"},
		{"cut on a rune boundary", bound.Cut("éééé", 6), "é…"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
		if !utf8.ValidString(tc.got) {
			t.Errorf("%s: %q is not valid UTF-8", tc.name, tc.got)
		}
	}
}

// Sprintf cuts each %q string argument before formatting it, and the
// whole message to MaxText, so a megabyte of input costs a bounded message.
func TestSprintfBoundsWhatItQuotes(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	msg := bound.Sprintf("key %q is %s", huge, "bad")
	if want := `key "` + strings.Repeat("x", bound.MaxQuoted) + `…" is bad`; msg != want {
		t.Errorf("Sprintf(%%q of 1 MiB) = %.100q…, want %q", msg, want)
	}
	if got := bound.Sprintf("%s", huge); len(got) > bound.MaxText {
		t.Errorf("Sprintf(%%s of 1 MiB) is %d bytes, want at most %d", len(got), bound.MaxText)
	}
	if got := bound.Sprintf("%[1]q", "a"); got != `"a"` {
		t.Errorf("explicit argument indexes: %q", got)
	}
}

// Plain escapes what could forge a line of a report or drive a terminal.
func TestPlainEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":     "plain text",
		"two\nlines":     `two\x0alines`,
		"\x1b[31mred":    `\x1b[31mred`,
		"bidi \u202e":    `bidi \u202e`,
		"hidden \u200b.": `hidden \u200b.`,
		"bad \xff":       `bad \xff`,
		"kept \uFFFD":    "kept \uFFFD",
	} {
		if got := bound.Plain(in); got != want {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
	}
	if got := bound.Plain(strings.Repeat("\n", 4*bound.MaxText)); len(got) > bound.MaxText {
		t.Errorf("Plain of escapes is %d bytes, want at most %d", len(got), bound.MaxText)
	}
	if bound.Hidden('a') != "" || bound.Hidden('\u2066') == "" || bound.Hidden('\uFEFF') == "" {
		t.Error("Hidden: want a, and only a, allowed")
	}
}

func TestDurations(t *testing.T) {
	for d, want := range map[time.Duration]string{
		90 * time.Second:        "1m30s",
		2 * time.Hour:           "2h",
		time.Hour + time.Minute: "1h1m",
		1500 * time.Millisecond: "1.5s",
	} {
		if got := bound.FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%s) = %q, want %q", d, got, want)
		}
	}
	if got := bound.Range(0, 24*time.Hour); got != "0 to 24h" {
		t.Errorf("Range = %q", got)
	}
	const maxD = time.Duration(1<<63 - 1)
	if got := bound.AddSat(maxD-1, time.Hour); got != maxD {
		t.Errorf("AddSat past the largest duration = %s, want it saturated", got)
	}
	if got := bound.AddSat(time.Second, time.Minute); got != 61*time.Second {
		t.Errorf("AddSat(1s, 1m) = %s", got)
	}
}
