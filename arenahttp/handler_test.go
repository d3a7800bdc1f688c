package arenahttp

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestLockStart: a run added to wg under lockStart is waited for by a Close
// that began meanwhile; once Close has begun, a start is answered 503 and
// the lock is given back.
func TestLockStart(t *testing.T) {
	s := newSystem(t, systemConfig{})
	unlock, ok := s.h.lockStart(httptest.NewRecorder())
	if !ok {
		t.Fatal("lockStart before Close reported false")
	}
	closed := make(chan struct{})
	go func() { s.h.Close(); close(closed) }()
	waitFor(t, "Close to begin", s.h.closed)
	// The start adds its run, which lasts until Close cancels h.ctx.
	ended := make(chan struct{})
	s.h.wg.Add(1)
	go func() {
		defer s.h.wg.Done()
		<-s.h.ctx.Done()
		close(ended)
	}()
	unlock()
	<-closed
	select {
	case <-ended:
	default:
		t.Error("Close returned before the run started under lockStart ended")
	}

	w := httptest.NewRecorder()
	if _, ok := s.h.lockStart(w); ok {
		t.Fatal("lockStart after Close reported true")
	}
	e := errorOf(t, response{code: w.Code, header: w.Header(), body: w.Body.Bytes()})
	if w.Code != http.StatusServiceUnavailable || e.Error != "server is shutting down" {
		t.Errorf("lockStart after Close answered %d %+v, want 503 server is shutting down", w.Code, e)
	}
	if !s.h.startMu.TryLock() {
		t.Error("lockStart kept the lock after answering 503")
	}
	s.h.startMu.Unlock() // either way, so that the cleanup's Close returns
}
