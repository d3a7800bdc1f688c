package arenahttp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// checkKeys refuses what encoding/json would quietly accept in a body: a
// key given twice (the last would win), keys that differ only in case (both
// would be applied to one field) and a key in another case than its field's
// (json matches names case-insensitively). The scenario loader refuses the
// same in YAML. Syntax errors are left to the decoder, which reports them.
func checkKeys(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	fields := jsonFields(v)
	var walk func(path string, depth int) error
	walk = func(path string, depth int) error {
		t, err := dec.Token()
		if err != nil || depth > maxKeyDepth {
			return errStopWalk
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
			kt, err := dec.Token()
			if err != nil {
				return errStopWalk
			}
			k, _ := kt.(string)
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
