package arena

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// rangeText describes the durations from lo to hi: "0 to 24h".
func rangeText(lo, hi time.Duration) string {
	l := trimDuration(lo)
	if lo == 0 {
		l = "0"
	}
	return l + " to " + trimDuration(hi)
}

// maxQuoted bounds a value quoted in an error message, in bytes: a message
// names the value at fault, and a megabyte-long value must not make a
// megabyte-long message (nor a hundred of them, one per problem).
const maxQuoted = 64

// quoteValue quotes s for a message as %q does, cut at maxQuoted bytes (on
// a rune boundary) with "…" after the quote when it was longer.
func quoteValue(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}
