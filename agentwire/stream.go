package agentwire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// streamFault is a model answer's body under a stream fault: stream_cut,
// stream_stall, malformed_event or slow_first_token. On a stream
// (text/event-stream) it acts after AfterEvents whole events; on an answer
// that is not a stream, once the first half of its body is handed out.
type streamFault struct {
	ctx      context.Context
	rc       io.ReadCloser
	f        LLMFault
	provider Provider
	sse      bool

	out    []byte // ready to hand out
	held   []byte // read, handed out after the fault's point
	events int    // whole events handed out (a stream)
	split  bool   // an answer that is not a stream: read and cut in two
	acted  bool
	eof    bool  // rc is read to its end
	err    error // once out is empty: what Read returns

	closeOnce sync.Once
	closed    chan struct{} // Close ends a stall under way, as it ends a read on a connection
}

func newStreamFault(ctx context.Context, rc io.ReadCloser, f LLMFault, p Provider, sse bool) io.ReadCloser {
	return &streamFault{ctx: ctx, rc: rc, f: f, provider: p, sse: sse, closed: make(chan struct{})}
}

func (s *streamFault) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	return s.rc.Close()
}

func (s *streamFault) Read(p []byte) (int, error) {
	for len(s.out) == 0 && s.err == nil {
		if err := s.step(); err != nil {
			s.err = err
		}
	}
	if len(s.out) == 0 {
		return 0, s.err
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

// step moves the answer on: up to the fault's point, the fault's act, then
// the rest as it comes.
func (s *streamFault) step() error {
	switch {
	case s.acted:
		if len(s.held) > 0 {
			s.out, s.held = s.held, nil
			return nil
		}
		if s.eof {
			return io.EOF
		}
		return s.read(&s.out)
	case s.f.Error == ErrSlowFirstToken:
		s.acted = true
		return s.wait(s.f.Delay)
	case !s.sse && !s.split:
		body, err := io.ReadAll(s.rc)
		if err != nil {
			return s.readErr(err)
		}
		s.eof, s.split = true, true
		half := len(body) / 2
		s.out, s.held = body[:half], body[half:]
		return nil // the first half; the fault acts at the next step
	case !s.sse:
		return s.act()
	case s.events >= s.f.AfterEvents:
		return s.act()
	}
	if end := eventEnd(s.held); end >= 0 {
		s.out = append(s.out, s.held[:end]...)
		s.held = s.held[end:]
		s.events++
		return nil
	}
	if s.eof { // the stream ended before the fault's point
		s.out, s.held = s.held, nil
		s.acted = true
		return nil
	}
	return s.read(&s.held)
}

// read appends what rc has next to *to.
func (s *streamFault) read(to *[]byte) error {
	buf := make([]byte, 32<<10)
	n, err := s.rc.Read(buf)
	*to = append(*to, buf[:n]...)
	if err == io.EOF {
		s.eof = true
		return nil
	}
	return s.readErr(err)
}

func (s *streamFault) readErr(err error) error {
	if err != nil && s.ctx.Err() != nil {
		return s.ctx.Err()
	}
	return err
}

// act does the fault at its point.
func (s *streamFault) act() error {
	s.acted = true
	switch s.f.Error {
	case ErrStreamCut:
		s.rc.Close()
		s.held, s.eof = nil, true
		return io.ErrUnexpectedEOF // what net/http's body says of a connection cut mid-answer
	case ErrStreamStall:
		return s.wait(s.f.Delay)
	case ErrMalformedEvent:
		if s.sse {
			s.out = append(s.out, malformedEvent(s.provider)...)
		} else {
			s.held = append([]byte(`"}]}<!-- upstream connect error -->`), s.held...)
		}
	}
	return nil
}

// wait stalls the answer for d, or until the caller gives up or closes
// the body.
func (s *streamFault) wait(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-s.ctx.Done():
		s.rc.Close()
		return s.ctx.Err()
	case <-s.closed:
		return errClosed
	}
}

// errClosed is what a read of a closed answer returns (net/http's words).
var errClosed = errors.New("http: read on closed response body")

// eventEnd is the length of the first whole server-sent event in b (through
// its blank line), or -1.
func eventEnd(b []byte) int {
	i, j := bytes.Index(b, []byte("\n\n")), bytes.Index(b, []byte("\r\n\r\n"))
	switch {
	case i < 0 && j < 0:
		return -1
	case j < 0 || (i >= 0 && i < j):
		return i + 2
	default:
		return j + 4
	}
}

// malformedEvent is an event of the provider's stream whose data is JSON
// cut short.
func malformedEvent(p Provider) []byte {
	if p == Anthropic {
		return []byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\n\n")
	}
	return []byte("data: {\"id\":\"chatcmpl-arena\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\n\n")
}
