package arena

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IdentifierProblem says what is wrong with the characters of an
// identifier (an agent, node or action ID; a label), or "" when nothing is.
// An identifier is valid UTF-8 without white space, control characters,
// bidirectional controls (U+202A–202E, U+2066–2069, U+200E, U+200F) or
// invisible ones (U+200B–200D, U+2060, U+FEFF and the other format
// characters): what is printed must be what is matched, so that an ID in a
// report or a terminal cannot look like another one. Length is the
// caller's rule. Nor is an identifier a path: it holds no / or \ and is
// not . or .., since runtimes put IDs in URL paths (a pod's proxy, an
// agent's fault-control API), where ../../etc/passwd would walk elsewhere.
func IdentifierProblem(id string) string {
	printable := true // printable ASCII is the common case and needs no tables
	for i := 0; i < len(id) && printable; i++ {
		printable = id[i] > ' ' && id[i] < 0x7f
	}
	if !printable && !utf8.ValidString(id) {
		return "is not valid UTF-8"
	}
	switch {
	case id == "." || id == "..":
		return "is a path segment (. or ..)"
	case strings.ContainsAny(id, "/\\"):
		return "contains a path separator (/ or \\)"
	case printable:
		return ""
	}
	for _, r := range id {
		if r <= ' ' || unicode.IsSpace(r) || unicode.IsControl(r) {
			return "contains white space or control characters"
		}
		if p := hiddenRune(r); p != "" {
			return fmt.Sprintf("contains %U, %s", r, p)
		}
	}
	return ""
}

// nameProblem is IdentifierProblem for names shown to people (a scenario's
// name): spaces are fine, but not line breaks, escapes (ESC and the other
// control characters) or hidden characters, which could forge a line of a
// report.
func nameProblem(name string) string {
	if !utf8.ValidString(name) {
		return "is not valid UTF-8"
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) {
			return fmt.Sprintf("contains the control character %U (names are one line of plain text)", r)
		}
		if p := hiddenRune(r); p != "" {
			return fmt.Sprintf("contains %U, %s", r, p)
		}
	}
	return ""
}

// hiddenRune says why r may not appear in an identifier or a name, or ""
// when it may.
func hiddenRune(r rune) string {
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
