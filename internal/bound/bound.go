// Package bound holds the bounds every layer of arena keeps on what it
// writes and computes: text quoted from outside is cut and made safe to
// print on one line (Quote, Cut, Sprintf, Plain), durations are printed
// short (FormatDuration, Range), and sums of durations saturate instead of
// wrapping around (AddSat). See DESIGN §14, "Bounds".
package bound

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Output is bounded in bytes: a message quotes at most MaxQuoted bytes of a
// value, a problem's path and message are at most MaxText bytes, a
// list of problems at most scenario.MaxErrorBytes, and a scenario's text
// with its aliases expanded at most scenario.MaxExpanded, so that no input
// a server accepts can make an answer (or the memory behind it) much
// larger than the input itself.
const (
	// MaxQuoted bounds a value quoted in a message.
	MaxQuoted = 64
	// MaxText bounds the path and the message of one problem.
	MaxText = 1024
)

// Range describes the durations from lo to hi: "0 to 24h".
func Range(lo, hi time.Duration) string {
	l := FormatDuration(lo)
	if lo == 0 {
		l = "0"
	}
	return l + " to " + FormatDuration(hi)
}

// Quote quotes s for a message as %q does, cut at MaxQuoted bytes (on
// a rune boundary) with "…" after the quote when it was longer.
func Quote(s string) string {
	if len(s) <= MaxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(cutAt(s, MaxQuoted)) + "…"
}

// cutAt returns s cut to at most n bytes, on a rune boundary.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Cut cuts s to at most n bytes, marking the cut with "…".
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cutAt(s, n-len("…")) + "…"
}

// Sprintf is fmt.Sprintf for messages that quote values: each string
// argument of a %q verb is cut to MaxQuoted bytes before it is formatted
// (a megabyte-long value costs 64 bytes, not a megabyte per message), and
// the message to MaxText.
func Sprintf(format string, args ...any) string {
	if quoted := quotedArgs(format); len(quoted) > 0 {
		args = append([]any(nil), args...)
		for _, i := range quoted {
			if i >= len(args) {
				break
			}
			v := reflect.ValueOf(args[i])
			if v.Kind() == reflect.String && v.Len() > MaxQuoted {
				cut := reflect.New(v.Type()).Elem()
				cut.SetString(cutAt(v.String(), MaxQuoted) + "…")
				args[i] = cut.Interface()
			}
		}
	}
	return Cut(fmt.Sprintf(format, args...), MaxText)
}

// quotedArgs returns the indexes of the arguments that format prints with
// %q; none when it numbers its arguments explicitly.
func quotedArgs(format string) []int {
	var out []int
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.*", format[i]) >= 0 {
			if format[i] == '*' {
				arg++
			}
			i++
		}
		switch {
		case i >= len(format):
			return out
		case format[i] == '%':
			continue
		case format[i] == '[':
			return nil
		case format[i] == 'q':
			out = append(out, arg)
		}
		arg++
	}
	return out
}

// Plain makes a string from outside (an error of a runtime, a
// scenario's description) safe to print on one line of a report: control
// characters, line breaks and the characters that reorder or hide text
// (bidirectional controls, invisible ones) are escaped as \x1b or \u202e,
// so that a value cannot forge a line or drive a terminal, and it is cut to
// MaxText bytes.
func Plain(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) || Hidden(r) != "" {
			clean = false
			break
		}
	}
	if clean {
		return Cut(s, MaxText)
	}
	var b strings.Builder
	for i, r := range s {
		if b.Len() > MaxText {
			break
		}
		switch {
		case r == utf8.RuneError && strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteRune(r)
		case r == utf8.RuneError:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) || Hidden(r) != "":
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return Cut(b.String(), MaxText)
}

// Hidden says why r may not appear in an identifier or a name, or ""
// when it may.
func Hidden(r rune) string {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F:
		return "a bidirectional control"
	case r >= 0x200B && r <= 0x200D, r == 0x2060, r == 0xFEFF:
		return "an invisible character"
	case unicode.Is(unicode.Cf, r):
		return "a format character"
	}
	return ""
}
