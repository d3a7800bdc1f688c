package agents

import (
	"context"
	"net/http"
	"sync"

	"github.com/ares-arena/arena/sim"
)

// served is what runs on a node between its Start and its Stop.
type served struct {
	srv  *http.Server
	stop func()
}

var (
	servingMu sync.Mutex
	serving   = map[*sim.Node]served{}
)

// startHTTP is a node's Start that serves the handler h makes (anew at each
// start) on port 80.
func startHTTP(h func() (http.Handler, func())) func(context.Context, *sim.Node) error {
	return func(ctx context.Context, n *sim.Node) error {
		l, err := n.Listen(":80")
		if err != nil {
			return err
		}
		handler, stop := h()
		srv := &http.Server{Handler: handler}
		servingMu.Lock()
		serving[n] = served{srv, stop}
		servingMu.Unlock()
		go srv.Serve(l)
		return nil
	}
}

// stopHTTP is the Stop of a node started by startHTTP: its server and
// what the handler holds end.
func stopHTTP(ctx context.Context, n *sim.Node) error {
	servingMu.Lock()
	s, ok := serving[n]
	delete(serving, n)
	servingMu.Unlock()
	if !ok {
		return nil
	}
	err := s.srv.Close()
	if s.stop != nil {
		s.stop()
	}
	return err
}
