package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"time"
)

// Model is the scripted model: an HTTP server that speaks OpenAI's chat
// completions (POST /v1/chat/completions) and Anthropic's messages (POST
// /v1/messages) wire protocols, answers as a JSON body or as the
// provider's event stream ("stream": true), and decides by a script: a
// task's first turn calls its tool (pay or open_ticket) with the task's
// arguments; a turn after a tool result ends the task with the text
// "done: <the tool's result>". The agent code and the SDKs are real; the
// model is not.
type Model struct {
	// Think is how long each answer takes (and between two stream events,
	// Think/10).
	Think time.Duration
	ids   atomic.Uint64
}

// The tools the model knows, with their JSON schemas.
var modelTools = map[string]map[string]any{
	"pay": {"type": "object", "properties": map[string]any{
		"account": map[string]any{"type": "string"}, "amount": map[string]any{"type": "integer"}},
		"required": []string{"account", "amount"}},
	"open_ticket": {"type": "object", "properties": map[string]any{
		"title": map[string]any{"type": "string"}}, "required": []string{"title"}},
}

// turn is what the script decides: a tool call, or the final text.
type turn struct {
	tool  string
	input map[string]any
	text  string
}

var (
	payTask    = regexp.MustCompile(`pay (\d+) to (\S+)`)
	ticketTask = regexp.MustCompile(`open a ticket "([^"]+)"`)
)

// decide reads the conversation: the task (the first user text) and, when
// there is one, the last tool result.
func decide(task string, result *string) turn {
	if result != nil {
		return turn{text: "done: " + *result}
	}
	if m := payTask.FindStringSubmatch(task); m != nil {
		var amount int
		fmt.Sscan(m[1], &amount)
		return turn{tool: "pay", input: map[string]any{"account": m[2], "amount": amount}}
	}
	if m := ticketTask.FindStringSubmatch(task); m != nil {
		return turn{tool: "open_ticket", input: map[string]any{"title": m[1]}}
	}
	return turn{text: "I cannot do that task."}
}

func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Stream   bool              `json:"stream"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	if !pause(r.Context(), m.Think) {
		return
	}
	id := m.ids.Add(1)
	switch r.URL.Path {
	case "/v1/chat/completions":
		t := decide(openAITurns(req.Messages))
		m.openAI(w, r, req.Stream, id, t)
	case "/v1/messages":
		t := decide(anthropicTurns(req.Messages))
		m.anthropic(w, r, req.Stream, id, t)
	default:
		http.NotFound(w, r)
	}
}

func openAITurns(msgs []json.RawMessage) (task string, result *string) {
	for _, raw := range msgs {
		var m struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		}
		json.Unmarshal(raw, &m)
		text := contentText(m.Content)
		switch m.Role {
		case "user":
			if task == "" {
				task = text
			}
		case "tool":
			result = &text
		}
	}
	return task, result
}

func anthropicTurns(msgs []json.RawMessage) (task string, result *string) {
	for _, raw := range msgs {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal(raw, &m)
		if m.Role != "user" {
			continue
		}
		var blocks []struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Content any    `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			var s string
			json.Unmarshal(m.Content, &s)
			blocks = append(blocks, struct {
				Type    string `json:"type"`
				Text    string `json:"text"`
				Content any    `json:"content"`
			}{Type: "text", Text: s})
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				if task == "" {
					task = b.Text
				}
			case "tool_result":
				text := contentText(b.Content)
				result = &text
			}
		}
	}
	return task, result
}

// contentText is a message content's text: a string, or its text parts.
func contentText(c any) string {
	switch c := c.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, p := range c {
			if p, ok := p.(map[string]any); ok {
				if s, ok := p["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "")
	}
	return ""
}

func (m *Model) openAI(w http.ResponseWriter, r *http.Request, stream bool, id uint64, t turn) {
	cid := fmt.Sprintf("chatcmpl-%d", id)
	msg := map[string]any{"role": "assistant", "content": nil}
	finish := "stop"
	var call map[string]any
	if t.tool != "" {
		args, _ := json.Marshal(t.input)
		call = map[string]any{"id": fmt.Sprintf("call_%d", id), "type": "function",
			"function": map[string]any{"name": t.tool, "arguments": string(args)}}
		msg["tool_calls"] = []any{call}
		finish = "tool_calls"
	} else {
		msg["content"] = t.text
	}
	w.Header().Set("x-request-id", fmt.Sprintf("req_model%d", id))
	usage := map[string]any{"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}
	if !stream {
		writeJSON(w, map[string]any{"id": cid, "object": "chat.completion", "created": 1767225600, "model": "gpt-scripted",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	ev := newEvents(w, r, m.Think/10)
	chunk := func(delta map[string]any, finish any) {
		ev.data(map[string]any{"id": cid, "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-scripted",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if call != nil {
		fn := call["function"].(map[string]any)
		args := fn["arguments"].(string)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": call["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil)
		for _, part := range halves(args) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": part}}}}, nil)
		}
	} else {
		for _, part := range halves(t.text) {
			chunk(map[string]any{"content": part}, nil)
		}
	}
	chunk(map[string]any{}, finish)
	ev.raw("data: [DONE]\n\n")
}

func (m *Model) anthropic(w http.ResponseWriter, r *http.Request, stream bool, id uint64, t turn) {
	mid := fmt.Sprintf("msg_%d", id)
	var block map[string]any
	stop := "end_turn"
	if t.tool != "" {
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", id), "name": t.tool, "input": t.input}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": t.text}
	}
	w.Header().Set("request-id", fmt.Sprintf("req_model%d", id))
	usage := map[string]any{"input_tokens": 50, "output_tokens": 20}
	if !stream {
		writeJSON(w, map[string]any{"id": mid, "type": "message", "role": "assistant", "model": "claude-scripted",
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	ev := newEvents(w, r, m.Think/10)
	ev.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": mid, "type": "message",
		"role": "assistant", "model": "claude-scripted", "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 50, "output_tokens": 1}}})
	if t.tool != "" {
		start := map[string]any{"type": "tool_use", "id": block["id"], "name": t.tool, "input": map[string]any{}}
		ev.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
		args, _ := json.Marshal(t.input)
		for _, part := range halves(string(args)) {
			ev.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
	} else {
		ev.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		for _, part := range halves(t.text) {
			ev.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": part}})
		}
	}
	ev.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 20}})
	ev.event("message_stop", map[string]any{"type": "message_stop"})
}

// halves splits s in two, so that a stream carries it in two deltas.
func halves(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	return []string{s[:len(s)/2], s[len(s)/2:]}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// events writes a server-sent event stream, one event every gap, until
// the caller goes.
type events struct {
	w   http.ResponseWriter
	r   *http.Request
	gap time.Duration
	n   int
}

func newEvents(w http.ResponseWriter, r *http.Request, gap time.Duration) *events {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &events{w: w, r: r, gap: gap}
}

func (e *events) raw(s string) {
	if e.n > 0 && !pause(e.r.Context(), e.gap) {
		return
	}
	e.n++
	fmt.Fprint(e.w, s)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (e *events) data(v any) {
	b, _ := json.Marshal(v)
	e.raw("data: " + string(b) + "\n\n")
}

func (e *events) event(name string, v any) {
	b, _ := json.Marshal(v)
	e.raw("event: " + name + "\ndata: " + string(b) + "\n\n")
}

// pause waits d, or until ctx ends (false).
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
