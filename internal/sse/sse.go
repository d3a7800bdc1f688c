// Package sse writes and reads Server-Sent Events frames (the
// text/event-stream format of the HTML Living Standard, §9.2).
//
// A frame is a block of "field: value" lines ended by a blank line:
//
//	id: 7
//	event: arena.action.executed
//	data: {"id":"arena-7",…}
//
// Data that holds line breaks is sent as one data line per line, which the
// client joins back with "\n". A comment (a line starting with ':') carries
// nothing to the application; servers send one as a heartbeat so that
// proxies and clients see the connection is alive. Writers never put a
// line break in an id or event name: it would end the field early and
// corrupt the stream, so AppendEvent rejects it.
//
// Reader parses a stream back into Events, as a browser's EventSource
// would; arena's tests and clients use it.
package sse

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Event is one frame. Empty fields are left out of the frame; an event with
// no data is still written (a client dispatches nothing for it, but its id
// and retry take effect).
type Event struct {
	ID    string        // "id:"; the client sends the last one back as Last-Event-ID
	Event string        // "event:"; the client dispatches on it ("message" when empty)
	Data  []byte        // "data:", one line per line of Data
	Retry time.Duration // "retry:", in milliseconds; 0 leaves it out
}

// ErrLineBreak: an id or event name holds a line break (or, for an id, a
// NUL, which clients ignore the id for).
var ErrLineBreak = errors.New("sse: line break in a single-line field")

// AppendEvent appends e's frame to b.
func AppendEvent(b []byte, e Event) ([]byte, error) {
	if strings.ContainsAny(e.ID, "\r\n\x00") || strings.ContainsAny(e.Event, "\r\n") {
		return b, ErrLineBreak
	}
	if e.ID != "" {
		b = append(append(append(b, "id: "...), e.ID...), '\n')
	}
	if e.Event != "" {
		b = append(append(append(b, "event: "...), e.Event...), '\n')
	}
	if e.Retry > 0 {
		b = append(strconv.AppendInt(append(b, "retry: "...), e.Retry.Milliseconds(), 10), '\n')
	}
	if e.Data != nil {
		for _, line := range splitLines(e.Data) {
			b = append(append(append(b, "data: "...), line...), '\n')
		}
	}
	return append(b, '\n'), nil
}

// AppendComment appends a comment frame (": text\n\n"), which clients
// ignore: the heartbeat of a quiet stream. Line breaks in text become
// separate comment lines.
func AppendComment(b []byte, text string) []byte {
	for _, line := range splitLines([]byte(text)) {
		b = append(append(append(b, ": "...), line...), '\n')
	}
	return append(b, '\n')
}

// splitLines splits at "\r\n", "\n" and "\r", the three line ends a client
// accepts, so that no line end inside data survives as-is.
func splitLines(data []byte) [][]byte {
	var lines [][]byte
	for {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			return append(lines, data)
		}
		lines = append(lines, data[:i])
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
}
