package arenahttp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// checkKeys refuses what encoding/json would quietly accept in a body: a
// key given twice (the last would win), keys that differ only in case (both
// would be applied to one field), a key in another case than its field's
// (json matches names case-insensitively), and a string that is not valid
// UTF-8 (an ID would be stored with U+FFFD in place of what was sent). The
// scenario loader refuses the same in YAML. Syntax errors are left to the
// decoder, which reports them.
func checkKeys(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	fields := jsonFields(v)
	// token is the next token and the bytes it came from.
	token := func() (json.Token, []byte, error) {
		from := dec.InputOffset()
		t, err := dec.Token()
		return t, b[from:dec.InputOffset()], err
	}
	var walk func(path string, depth int) error
	walk = func(path string, depth int) error {
		t, raw, err := token()
		if err != nil || depth > maxKeyDepth {
			return errStopWalk
		}
		if s, ok := t.(string); ok && !validText(s, raw) {
			return badRequest(orBody(path), "not valid UTF-8 (a byte sequence or \\u escape that is no character)")
		}
		d, ok := t.(json.Delim)
		if !ok {
			return nil
		}
		if d == '[' {
			for i := 0; dec.More(); i++ {
				if err := walk(path+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
					return err
				}
			}
			_, _ = dec.Token()
			return nil
		}
		seen := map[string]string{} // folded key → the key as given
		for dec.More() {
			kt, raw, err := token()
			if err != nil {
				return errStopWalk
			}
			k, _ := kt.(string)
			if !validText(k, raw) {
				return badRequest(orBody(path), "a key is not valid UTF-8")
			}
			p := k
			if path != "" {
				p = path + "." + k
			}
			f := fold(k)
			if prev, dup := seen[f]; dup {
				if prev == k {
					return badRequest(p, "duplicate key")
				}
				return badRequest(p, "duplicate key: %q differs from %q only in case", k, prev)
			}
			seen[f] = k
			if want, ok := fields[f]; ok && path == "" && want != k {
				return badRequest(k, "unknown field (keys are case-sensitive: want %q)", want)
			}
			if err := walk(p, depth+1); err != nil {
				return err
			}
		}
		_, _ = dec.Token()
		return nil
	}
	if err := walk("", 0); err != nil && err != errStopWalk {
		return err
	}
	return nil
}

// validText reports whether the JSON string s was decoded from raw (its
// bytes in the body) without a replacement: encoding/json turns invalid
// UTF-8 and unpaired surrogate escapes (\ud800) into U+FFFD silently.
func validText(s string, raw []byte) bool {
	if !strings.ContainsRune(s, utf8.RuneError) {
		return true // nothing was replaced
	}
	if !utf8.Valid(raw) {
		return false
	}
	for i := 0; i < len(raw)-1; i++ {
		if raw[i] != '\\' {
			continue
		}
		i++ // the escaped character: \\ and \" are not the start of another
		if raw[i] != 'u' || i+4 >= len(raw) {
			continue
		}
		r, _ := strconv.ParseUint(string(raw[i+1:i+5]), 16, 32)
		i += 4
		switch {
		case r < 0xd800 || r > 0xdfff:
		case r >= 0xdc00: // a low surrogate with no high one before it
			return false
		case i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u':
			lo, _ := strconv.ParseUint(string(raw[i+3:i+7]), 16, 32)
			if lo < 0xdc00 || lo > 0xdfff {
				return false
			}
			i += 6
		default: // a high surrogate with no low one after it
			return false
		}
	}
	return true
}

func orBody(path string) string {
	if path == "" {
		return "body"
	}
	return path
}

// maxKeyDepth bounds the nesting checkKeys walks; deeper bodies are left to
// the decoder's own limit.
const maxKeyDepth = 1000

var errStopWalk = badRequest("body", "stop")

// fold maps keys that encoding/json would match to one string.
func fold(k string) string { return strings.ToLower(strings.ToUpper(k)) }

// jsonFields maps the folded JSON names of the fields of the struct v
// points to, to the names as declared.
func jsonFields(v any) map[string]string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	m := map[string]string{}
	if t == nil || t.Kind() != reflect.Struct {
		return m
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		m[fold(name)] = name
	}
	return m
}
