package sse

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"time"
)

// maxRetryMS is the longest retry a Duration can hold, in milliseconds.
const maxRetryMS = uint64(1<<63-1) / uint64(time.Millisecond)

// Reader parses a text/event-stream as an EventSource does: fields
// accumulate until a blank line dispatches the event; comments and unknown
// fields are ignored; the last id is sticky (LastID); an event whose data
// is empty is not dispatched.
type Reader struct {
	r        *bufio.Reader
	lastID   string
	retry    time.Duration
	comments int
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReader(r)} }

// LastID is the id of the last frame that set one: what a reconnecting
// client sends as Last-Event-ID.
func (r *Reader) LastID() string { return r.lastID }

// Retry is the last reconnection delay the server sent (0 if none).
func (r *Reader) Retry() time.Duration { return r.retry }

// Comments counts the comment lines read so far (heartbeats).
func (r *Reader) Comments() int { return r.comments }

// Next returns the next dispatched event. Its ID is the sticky last id. At
// the end of the stream it returns io.EOF (an unfinished frame is dropped,
// as a client drops it).
func (r *Reader) Next() (Event, error) {
	var (
		e       Event
		data    bytes.Buffer
		hasData bool
	)
	for {
		line, err := r.r.ReadString('\n')
		if err != nil {
			if err == io.EOF {
				return Event{}, io.EOF
			}
			return Event{}, err
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line == "" {
			if !hasData {
				e = Event{}
				continue
			}
			e.ID = r.lastID
			e.Data = bytes.TrimSuffix(data.Bytes(), []byte("\n"))
			return e, nil
		}
		if line[0] == ':' {
			r.comments++
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "id":
			if !strings.Contains(value, "\x00") {
				r.lastID = value
			}
		case "event":
			e.Event = value
		case "data":
			data.WriteString(value)
			data.WriteByte('\n')
			hasData = true
		case "retry":
			if ms, err := strconv.ParseUint(value, 10, 63); err == nil && ms <= maxRetryMS {
				r.retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
}
