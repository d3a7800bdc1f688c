package arena

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Output is bounded in bytes: a message quotes at most maxQuoted bytes of a
// value, a problem's path and message are at most maxProblemText bytes, a
// list of problems at most MaxScenarioErrorBytes, and a scenario's text
// with its aliases expanded at most MaxScenarioExpanded, so that no input
// a server accepts can make an answer (or the memory behind it) much
// larger than the input itself.
const (
	// maxQuoted bounds a value quoted in a message.
	maxQuoted = 64
	// maxProblemText bounds the path and the message of one problem.
	maxProblemText = 1024
)

// rangeText describes the durations from lo to hi: "0 to 24h".
func rangeText(lo, hi time.Duration) string {
	l := trimDuration(lo)
	if lo == 0 {
		l = "0"
	}
	return l + " to " + trimDuration(hi)
}

// quoteValue quotes s for a message as %q does, cut at maxQuoted bytes (on
// a rune boundary) with "…" after the quote when it was longer.
func quoteValue(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(cutAt(s, maxQuoted)) + "…"
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

// cutText cuts s to at most n bytes, marking the cut with "…".
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cutAt(s, n-len("…")) + "…"
}

// boundedf is fmt.Sprintf for messages that quote values: each string
// argument of a %q verb is cut to maxQuoted bytes before it is formatted
// (a megabyte-long value costs 64 bytes, not a megabyte per message), and
// the message to maxProblemText.
func boundedf(format string, args ...any) string {
	if quoted := quotedArgs(format); len(quoted) > 0 {
		args = append([]any(nil), args...)
		for _, i := range quoted {
			if i >= len(args) {
				break
			}
			v := reflect.ValueOf(args[i])
			if v.Kind() == reflect.String && v.Len() > maxQuoted {
				cut := reflect.New(v.Type()).Elem()
				cut.SetString(cutAt(v.String(), maxQuoted) + "…")
				args[i] = cut.Interface()
			}
		}
	}
	return cutText(fmt.Sprintf(format, args...), maxProblemText)
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

// plainText makes a string from outside (an error of a runtime, a
// scenario's description) safe to print on one line of a report: control
// characters, line breaks and the characters that reorder or hide text
// (bidirectional controls, invisible ones) are escaped as \x1b or \u202e,
// so that a value cannot forge a line or drive a terminal, and it is cut to
// maxProblemText bytes.
func plainText(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) || hiddenRune(r) != "" {
			clean = false
			break
		}
	}
	if clean {
		return cutText(s, maxProblemText)
	}
	var b strings.Builder
	for i, r := range s {
		if b.Len() > maxProblemText {
			break
		}
		switch {
		case r == utf8.RuneError && strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteRune(r)
		case r == utf8.RuneError:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) || hiddenRune(r) != "":
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return cutText(b.String(), maxProblemText)
}
