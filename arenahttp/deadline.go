package arenahttp

import (
	"net/http"
	"time"
)

// Write deadlines. Every answer is written under one, so that a client
// that does not read (its pipelined requests' answers backing up in its
// buffers) is dropped instead of holding its handler for as long as it
// likes. net/http has only a server-wide WriteTimeout, counted from the
// request's start, which would cut off long answers (a scenario run, an
// event stream); this deadline is per answer instead: set when the handler
// starts (HTTP/1), for answers given at once, and again at each write,
// which then has WithWriteTimeout and the time its bytes need at
// minAnswerRate. A stream's writes are each one, cleared once flushed
// (stream.go): on HTTP/2 a deadline left set resets an idle stream.

// minAnswerRate is the slowest reading a large answer is given time for,
// in bytes a second: a 1 MiB answer has WithWriteTimeout and 16s more.
const minAnswerRate = 64 << 10

// deadlineWriter arms the connection's write deadline before each write.
// Unwrap lets http.ResponseController reach the connection beneath.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

// withWriteDeadline gives every answer of next a write deadline.
func (h *Handler) withWriteDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(h.deadlined(w, r), r)
	})
}

// deadlined wraps w and, on HTTP/1, arms its deadline for an answer
// given at once (net/http writes the header of one that writes nothing).
// Not on HTTP/2: there a deadline resets the stream when it passes,
// whether or not a write waits, so a handler that works longer than the
// timeout before it writes (a scenario run) would lose its answer; its
// WriteHeader and Write arm it.
func (h *Handler) deadlined(w http.ResponseWriter, r *http.Request) *deadlineWriter {
	d := &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: h.opts.writeTimeout}
	if r.ProtoMajor < 2 {
		d.arm(0)
	}
	return d
}

// arm gives the next n bytes until the timeout and their time at
// minAnswerRate. Without a connection (a test's recorder) there is no
// deadline to set.
func (d *deadlineWriter) arm(n int) {
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout + time.Duration(n)*(time.Second/minAnswerRate)))
}

func (d *deadlineWriter) WriteHeader(code int) {
	d.arm(0)
	d.ResponseWriter.WriteHeader(code)
}

func (d *deadlineWriter) Write(b []byte) (int, error) {
	d.arm(len(b))
	return d.ResponseWriter.Write(b)
}

func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }
