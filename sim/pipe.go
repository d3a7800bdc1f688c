package sim

import (
	"sync"
	"syscall"
	"time"
)

// bufferSize is how many bytes one direction of a conn holds before a
// Write blocks, like a socket's send and receive buffers together: a
// writer that outruns its reader is held back, so a conn cannot grow
// without bound.
const bufferSize = 256 << 10

// chunk is what one Write put on the wire: its bytes, and when they reach
// the other end (later than now under network_latency or bandwidth).
type chunk struct {
	b  []byte
	at time.Time
}

// pipe is one direction of a conn: the bytes in flight from the writer to
// the reader, in order. Every change closes and replaces changed, so a
// blocked Read or Write waits on a channel: in a synctest bubble that wait
// is durable, and the bubble's clock can jump past it.
type pipe struct {
	mu      sync.Mutex
	chunks  []chunk
	head    int // chunks[head:] are in flight
	size    int // bytes in flight
	last    time.Time
	eof     bool          // the writer closed: the reader sees io.EOF once it has read all
	gone    bool          // the reader closed: a Write fails with EPIPE
	err     syscall.Errno // not 0: the conn was reset (ECONNRESET); both ends see it
	changed chan struct{}
	waiting bool // someone took changed to wait on it: signal must close it
}

func newPipe() *pipe { return &pipe{changed: make(chan struct{})} }

// signal wakes whoever waits on the pipe. Called with p.mu held.
func (p *pipe) signal() {
	if p.waiting {
		close(p.changed)
		p.changed = make(chan struct{})
		p.waiting = false
	}
}

// wakeup returns the channel closed at the pipe's next change. Called
// with p.mu held.
func (p *pipe) wakeup() chan struct{} {
	p.waiting = true
	return p.changed
}

// push appends b, due at `at` (never before the chunk ahead of it: the
// bytes of a conn arrive in order). Called with p.mu held.
func (p *pipe) push(b []byte, at time.Time) {
	if at.Before(p.last) {
		at = p.last
	}
	p.last = at
	p.chunks = append(p.chunks, chunk{b: b, at: at})
	p.size += len(b)
	p.signal()
}

// pop reads up to len(b) bytes due by now into b. It returns 0 and the
// time the next chunk is due when none is yet (zero: nothing in flight).
// Called with p.mu held.
func (p *pipe) pop(b []byte, now time.Time) (int, time.Time) {
	n := 0
	for p.head < len(p.chunks) && n < len(b) {
		c := &p.chunks[p.head]
		if c.at.After(now) {
			if n == 0 {
				return 0, c.at
			}
			break
		}
		k := copy(b[n:], c.b)
		n += k
		c.b = c.b[k:]
		if len(c.b) == 0 {
			p.chunks[p.head] = chunk{}
			p.head++
		}
	}
	if p.head == len(p.chunks) {
		p.chunks, p.head = p.chunks[:0], 0
	} else if p.head > 64 && p.head*2 > len(p.chunks) {
		p.chunks = append(p.chunks[:0], p.chunks[p.head:]...)
		p.head = 0
	}
	p.size -= n
	if n > 0 {
		p.signal()
	}
	return n, time.Time{}
}

// fail resets the pipe with err: what is in flight is lost.
func (p *pipe) fail(err syscall.Errno) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == 0 {
		p.err = err
		p.chunks, p.head, p.size = nil, 0, 0
		p.signal()
	}
}

// closeWrite marks the writer's end closed: the reader reads what is in
// flight, then io.EOF.
func (p *pipe) closeWrite() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.eof {
		p.eof = true
		p.signal()
	}
}

// closeRead marks the reader's end closed: what is in flight is dropped,
// and the writer's next Write fails.
func (p *pipe) closeRead() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.gone {
		p.gone = true
		p.chunks, p.head, p.size = nil, 0, 0
		p.signal()
	}
}

// state is what a read or write of a pipe found when it could do nothing
// (or not all).
type state struct {
	errno   syscall.Errno // the conn was reset
	eof     bool          // read: the writer closed and all is read; write: the reader closed
	next    time.Time     // read: when the next chunk is due (zero: none in flight)
	changed chan struct{} // closed at the pipe's next change
}

// read reads up to len(b) bytes due by now into b (none while held).
func (p *pipe) read(b []byte, now time.Time, held bool) (int, state) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != 0 {
		return 0, state{errno: p.err}
	}
	var st state
	if !held {
		var n int
		if n, st.next = p.pop(b, now); n > 0 || len(b) == 0 {
			return n, st
		}
	}
	if p.size == 0 && p.eof {
		st.eof = true
		return 0, st
	}
	st.changed = p.wakeup()
	return 0, st
}

// write puts as much of b as the buffer takes on the wire, due at the time
// at gives for its size.
func (p *pipe) write(b []byte, at func(k int) time.Time) (int, state) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.err != 0:
		return 0, state{errno: p.err}
	case p.gone:
		return 0, state{eof: true}
	case len(b) == 0:
		return 0, state{}
	}
	if space := bufferSize - p.size; space > 0 {
		k := min(space, len(b))
		p.push(append([]byte(nil), b[:k]...), at(k))
		return k, state{}
	}
	return 0, state{changed: p.wakeup()}
}
