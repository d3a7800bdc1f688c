package scenario

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ares-arena/arena/internal/bound"
)

// ErrInvalid is wrapped by every *Error.
var ErrInvalid = errors.New("invalid scenario")

// Error is one problem of a scenario: where it is and what is wrong.
// File, Line and Column are known for scenarios loaded from a file; Path is
// the field at fault ("actions[2].action.metadata.delay"), empty for the
// document as a whole.
type Error struct {
	File   string
	Line   int // 1-based; 0 when unknown
	Column int // 1-based; 0 when unknown
	Path   string
	Msg    string
	// Err is the cause, when the problem has one that callers may test
	// for: a target the system does not list is a *fault.TargetError
	// (errors.Is(err, fault.ErrNoTarget)).
	Err error
}

// Error formats the problem as file:line:column: path: message, leaving out
// what is unknown.
func (e *Error) Error() string {
	var b strings.Builder
	loc := e.File
	if e.Line > 0 {
		if loc != "" {
			loc += ":"
		}
		loc += fmt.Sprint(e.Line)
		if e.Column > 0 {
			loc += fmt.Sprintf(":%d", e.Column)
		}
	}
	if loc != "" {
		b.WriteString(loc + ": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalid) true, and errors.Is and
// errors.As see the cause (Err) when there is one.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalid, e.Err}
	}
	return []error{ErrInvalid}
}

// Errors is every problem found in a scenario, in file order (in
// field order for scenarios built in code). Load and
// Validate return it as their error.
type Errors []*Error

// Error lists the problems, one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems, for errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}

// MaxErrors bounds the problems reported for one scenario, and
// MaxErrorBytes their text: the first ones in file order, then one
// "… and N more problems" entry. A small file can hold many problems
// (aliases repeat one node thousands of times); the report must stay small
// enough to read and to send. Each problem quotes at most 64 bytes of a
// value and is at most 1 KiB, cut before it is formatted.
const (
	MaxErrors     = 100
	MaxErrorBytes = 32 << 10
)

// tidy orders the problems by position (problems without one keep their
// order and come first: they concern the file as a whole), drops repeats of
// one problem at one place, and caps the list at MaxErrors.
func (es Errors) tidy() Errors {
	slices.SortStableFunc(es, func(a, b *Error) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	seen := make(map[problemKey]bool, len(es))
	out := es[:0]
	for _, e := range es {
		if k := e.key(); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	// Keep what fits, leaving room for the "… more" entry.
	const moreRoom = 64
	keep, size := 0, 0
	for ; keep < len(out) && keep < MaxErrors; keep++ {
		size += len(out[keep].Error()) + 1
		if size > MaxErrorBytes-moreRoom {
			break
		}
	}
	if keep == len(out) {
		return out
	}
	if keep == MaxErrors {
		keep--
	}
	more := &Error{File: out[0].File, Msg: fmt.Sprintf("… and %d more problems", len(out)-keep)}
	return append(out[:keep], more)
}

// problemKey identifies one problem: a message at a place of the file. A
// node that aliases repeat is one place, whatever the paths it appears
// under; a problem without a position (a scenario built in code) is told
// apart by its path.
type problemKey struct {
	file      string
	line, col int
	path, msg string
}

func (e *Error) key() problemKey {
	if e.Line > 0 {
		return problemKey{file: e.File, line: e.Line, col: e.Column, msg: e.Msg}
	}
	return problemKey{file: e.File, path: e.Path, msg: e.Msg}
}

// filePos is a 1-based line and column in a scenario file.
type filePos struct{ line, col int }

// scenarioSource remembers where a loaded scenario came from.
type scenarioSource struct {
	file string
	pos  map[string]filePos // field path → position of its key (or item)
	bad  map[string]bool    // paths that failed to decode: validation skips them
}

// errAt builds an error for path, located at the path's position or, for a
// field that is missing, at its nearest present parent.
func (src *scenarioSource) errAt(path, format string, args ...any) *Error {
	e := &Error{Path: bound.Cut(path, bound.MaxText), Msg: bound.Sprintf(format, args...)}
	if src == nil {
		return e
	}
	e.File = src.file
	for p := path; ; p = pathParent(p) {
		if pos, ok := src.pos[p]; ok {
			e.Line, e.Column = pos.line, pos.col
			break
		}
		if p == "" {
			break
		}
	}
	return e
}

// present reports whether path was in the file (always true for scenarios
// built in code).
func (src *scenarioSource) present(path string) bool {
	if src == nil {
		return true
	}
	_, ok := src.pos[path]
	return ok
}

// failed reports whether path, or a field containing it, failed to decode:
// its value is a placeholder that validation must not judge.
func (src *scenarioSource) failed(path string) bool {
	if src == nil {
		return false
	}
	for p := path; ; p = pathParent(p) {
		if src.bad[p] {
			return true
		}
		if p == "" {
			return false
		}
	}
}

// pathParent strips the last segment: "a.b[2]" → "a.b", "a.b" → "a".
func pathParent(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// pathKey appends a key to a field path.
func pathKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// pathIndex appends a sequence index to a field path.
func pathIndex(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }
