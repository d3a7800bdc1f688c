package arenahttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/ares-arena/arena/fault"
)

// ErrorResponse is the body of every error answer. Error names the field at
// fault ("metadata.delay: …") when there is one, which Field repeats on its
// own; Problems lists every problem of an invalid scenario.
type ErrorResponse struct {
	Error    string    `json:"error"`
	Field    string    `json:"field,omitempty"`
	Problems []Problem `json:"problems,omitempty"`
}

// Problem is one problem of an invalid scenario, where it is and what is
// wrong (scenario.Error as JSON).
type Problem struct {
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// MaxIDLength bounds the IDs in paths and bodies.
const MaxIDLength = 256

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"encode response"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

// writeError answers {"error": "field: msg", "field": field}.
func writeError(w http.ResponseWriter, code int, field, msg string) {
	e := ErrorResponse{Error: msg, Field: field}
	if field != "" {
		e.Error = field + ": " + msg
	}
	writeJSON(w, code, e)
}

// fieldError is a bad request naming its field.
type fieldError struct {
	field, msg string
	code       int // 0: 400
}

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

func badRequest(field, format string, args ...any) *fieldError {
	return &fieldError{field: field, msg: fmt.Sprintf(format, args...)}
}

// writeErr answers err: a *fieldError or *fault.ValidationError as 400 (or
// its own code), anything else as 500.
func writeErr(w http.ResponseWriter, err error) {
	var fe *fieldError
	var ve *fault.ValidationError
	switch {
	case errors.As(err, &fe):
		code := fe.code
		if code == 0 {
			code = http.StatusBadRequest
		}
		if code == http.StatusRequestEntityTooLarge || code == http.StatusRequestTimeout {
			dropBody(w) // the rest of the body is not read
		}
		writeError(w, code, fe.field, fe.msg)
	case errors.As(err, &ve):
		writeError(w, http.StatusBadRequest, ve.Field, ve.Msg)
	default:
		writeError(w, http.StatusInternalServerError, "", err.Error())
	}
}

// readBody reads the request body, at most the body limit (413 beyond it).
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, &fieldError{field: "body", msg: fmt.Sprintf("larger than the limit of %d bytes", tooBig.Limit), code: http.StatusRequestEntityTooLarge}
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, &fieldError{field: "body", msg: "not received within the body read timeout", code: http.StatusRequestTimeout}
	case err != nil:
		return nil, badRequest("body", "%v", err)
	}
	return b, nil
}

// decodeJSON decodes the body into v strictly: unknown fields, wrong types
// and trailing data are errors naming the field. An empty body leaves v as
// it is.
func decodeJSON(r *http.Request, v any) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if err := checkKeys(b, v); err != nil {
		return err
	}
	if !utf8.Valid(b) { // where checkKeys did not walk (nested too deep)
		return badRequest("body", "not valid UTF-8")
	}
	if err := strictUnmarshal(b, v); err != nil {
		return blame(b, v, err)
	}
	return nil
}

func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errTrailing
	}
	return nil
}

var errTrailing = errors.New("unexpected data after the JSON value")

// blame turns a decoding error into a *fieldError. Errors that carry their
// field (unknown fields, wrong types) say it; for the others (a custom
// decoder's complaint, such as a bad duration) the top-level key at fault is
// found by decoding each key on its own.
func blame(b []byte, v any, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, errTrailing):
		return badRequest("body", "%v", err)
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("body", "invalid JSON: %v", err)
	case errors.As(err, &typ) && typ.Field != "":
		return badRequest(typ.Field, "want %s, got JSON %s", typ.Type, typ.Value)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	unknown, isUnknown := strings.CutPrefix(msg, "unknown field ")
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return badRequest("body", "want a JSON object: %s", msg)
	}
	for _, k := range sortedKeys(b, top) {
		one, _ := json.Marshal(map[string]json.RawMessage{k: top[k]})
		if strictUnmarshal(one, reflect.New(reflect.TypeOf(v).Elem()).Interface()) == nil {
			continue
		}
		if isUnknown {
			name := strings.Trim(unknown, `"`)
			if name == k {
				return badRequest(k, "unknown field")
			}
			return badRequest(k+"."+name, "unknown field")
		}
		return badRequest(k, "%s", msg)
	}
	return badRequest("body", "%s", msg)
}

// sortedKeys returns the object's keys in the order they appear in b, so
// that the first bad key is blamed.
func sortedKeys(b []byte, m map[string]json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(b))
	var keys []string
	if _, err := dec.Token(); err != nil {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		if k, ok := t.(string); ok {
			if _, seen := m[k]; seen {
				keys = append(keys, k)
			}
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	return keys
}

// checkID applies the rule for IDs in paths and bodies: non-empty, at most
// MaxIDLength bytes, and fault.IdentifierProblem's rule for characters.
func checkID(field, id string) error {
	switch {
	case id == "":
		return badRequest(field, "empty ID")
	case len(id) > MaxIDLength:
		return badRequest(field, "ID of %d bytes is longer than %d", len(id), MaxIDLength)
	case fault.IdentifierProblem(id) != "":
		return badRequest(field, "ID %q %s", id, fault.IdentifierProblem(id))
	}
	return nil
}
