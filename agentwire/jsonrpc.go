package agentwire

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
)

// rpcCall is a JSON-RPC tools/call request of MCP.
type rpcCall struct {
	id   json.RawMessage
	tool string
}

// toolCall reads req's body, when it is a POST, and returns the request to
// send in its place (a clone whose body is the same bytes: the caller's
// request is not changed) and the tools/call it carries (nil for any other
// message). A body over maxMessage is passed on whole, unread past that.
func toolCall(req *http.Request) (*http.Request, *rpcCall, error) {
	if req.Method != http.MethodPost || req.Body == nil || req.Body == http.NoBody {
		return req, nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxMessage+1))
	if err != nil {
		req.Body.Close()
		return nil, nil, err
	}
	out := req.Clone(req.Context())
	if len(body) > maxMessage { // not a message to look into: the rest follows
		out.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), req.Body), req.Body}
		out.GetBody = nil
		return out, nil, nil
	}
	req.Body.Close()
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.ContentLength = int64(len(body))
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != "tools/call" || len(m.ID) == 0 {
		return out, nil, nil
	}
	return out, &rpcCall{id: m.ID, tool: m.Params.Name}, nil
}

// toolErrorResult is the answer of a tool that ran and failed: a
// CallToolResult whose isError is true.
func toolErrorResult(id json.RawMessage, msg string) []byte {
	return mustJSON(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{
		"content": []any{map[string]any{"type": "text", "text": msg}},
		"isError": true,
	}})
}

// rpcError is a JSON-RPC error answer.
func rpcError(id json.RawMessage, code int, msg string) []byte {
	return mustJSON(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

// lie changes the result of the answer to call id in body (a JSON message,
// or a stream of events one of which is it): f.Offset is added to the
// numbers of its structuredContent and of its text content (under f.Field
// when set). ok is false when body holds no result for id.
func lie(body []byte, sse bool, id json.RawMessage, f ToolFault) ([]byte, bool) {
	if !sse {
		return lieMessage(body, id, f)
	}
	var out []byte
	found := false
	for len(body) > 0 {
		end := eventEnd(body)
		if end < 0 {
			end = len(body)
		}
		ev := body[:end]
		body = body[end:]
		if !found {
			if changed, ok := lieEvent(ev, id, f); ok {
				ev, found = changed, true
			}
		}
		out = append(out, ev...)
	}
	return out, found
}

// lieEvent changes the data of one server-sent event, which may span
// several data lines (joined by newlines, as the client reads them); the
// lie is written back as one data line, in the place of the first.
func lieEvent(ev []byte, id json.RawMessage, f ToolFault) ([]byte, bool) {
	lines := bytes.SplitAfter(ev, []byte("\n"))
	var data [][]byte
	first := -1
	for i, l := range lines {
		v, ok := bytes.CutPrefix(l, []byte("data:"))
		if !ok {
			continue
		}
		if first < 0 {
			first = i
		}
		data = append(data, bytes.TrimRight(bytes.TrimPrefix(v, []byte(" ")), "\r\n"))
	}
	if first < 0 {
		return nil, false
	}
	changed, ok := lieMessage(bytes.Join(data, []byte("\n")), id, f)
	if !ok {
		return nil, false
	}
	end := lines[first][len(bytes.TrimRight(lines[first], "\r\n")):] // its line's end as it came
	var out []byte
	for i, l := range lines {
		switch {
		case i == first:
			out = append(append(append(out, "data: "...), changed...), end...)
		case !bytes.HasPrefix(l, []byte("data:")):
			out = append(out, l...)
		}
	}
	return out, true
}

func lieMessage(msg []byte, id json.RawMessage, f ToolFault) ([]byte, bool) {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(msg))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return nil, false
	}
	res, ok := m["result"].(map[string]any)
	if !ok || !sameID(m["id"], id) {
		return nil, false
	}
	if sc, ok := res["structuredContent"]; ok {
		res["structuredContent"] = lieValue(sc, f, f.Field == "")
	}
	if content, ok := res["content"].([]any); ok {
		for _, c := range content {
			block, ok := c.(map[string]any)
			if !ok || block["type"] != "text" {
				continue
			}
			text, _ := block["text"].(string)
			block["text"] = lieText(text, f)
		}
	}
	return mustJSON(m), true
}

// sameID reports whether a decoded JSON-RPC id (json.Number or string) is
// the raw id of the call, compared as values. An id of another kind (an
// array, an object: not JSON-RPC's) is no call's.
func sameID(got any, raw json.RawMessage) bool {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var want any
	if d.Decode(&want) != nil {
		return false
	}
	switch got.(type) {
	case json.Number, string:
	default:
		return false
	}
	switch want.(type) {
	case json.Number, string:
		return got == want
	}
	return false
}

// lieValue adds f.Offset to the numbers of v: every one when all, else
// those under the key f.Field.
func lieValue(v any, f ToolFault, all bool) any {
	switch v := v.(type) {
	case json.Number:
		if !all {
			return v
		}
		x, err := v.Float64()
		if err != nil {
			return v
		}
		return json.Number(strconv.FormatFloat(x+f.Offset, 'f', -1, 64))
	case map[string]any:
		for k, e := range v {
			v[k] = lieValue(e, f, all || k == f.Field)
		}
	case []any:
		for i, e := range v {
			v[i] = lieValue(e, f, all)
		}
	}
	return v
}

var number = regexp.MustCompile(`-?\d+(\.\d+)?`)

// lieText changes a text block: as JSON when it is JSON, else each number
// in it (with f.Field set, only a number right after "field": or "field=").
func lieText(text string, f ToolFault) string {
	trimmed := bytes.TrimSpace([]byte(text))
	d := json.NewDecoder(bytes.NewReader(trimmed))
	d.UseNumber()
	var v any
	if d.Decode(&v) == nil && d.InputOffset() == int64(len(trimmed)) {
		return string(mustJSON(lieValue(v, f, f.Field == "")))
	}
	if f.Field != "" {
		re := regexp.MustCompile(regexp.QuoteMeta(f.Field) + `"?\s*[:=]\s*(-?\d+(\.\d+)?)`)
		return re.ReplaceAllStringFunc(text, func(m string) string {
			loc := number.FindStringIndex(m[len(f.Field):])
			if loc == nil {
				return m
			}
			k := len(f.Field)
			return m[:k+loc[0]] + addTo(m[k+loc[0]:k+loc[1]], f.Offset) + m[k+loc[1]:]
		})
	}
	return number.ReplaceAllStringFunc(text, func(m string) string { return addTo(m, f.Offset) })
}

func addTo(num string, off float64) string {
	x, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return num
	}
	return strconv.FormatFloat(x+off, 'f', -1, 64)
}
