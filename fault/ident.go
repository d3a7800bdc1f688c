package fault

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ares-arena/arena/internal/bound"
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
		if p := bound.Hidden(r); p != "" {
			return fmt.Sprintf("contains %U, %s", r, p)
		}
	}
	return ""
}
