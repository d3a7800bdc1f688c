package natscluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// TestWorkloadChecks runs the workload against one embedded JetStream
// server: the checks pass on an intact stream, the outage of a window with
// no failure is zero, and a deleted acknowledged message is found lost.
func TestWorkloadChecks(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	defer srv.Shutdown()
	if !srv.ReadyForConnections(5 * time.Second) {
		t.Fatal("server not ready")
	}
	ctx := context.Background()
	w, err := NewWorkload(ctx, []string{srv.ClientURL()}, time.Second, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	from := time.Now()
	go func() { defer close(done); w.Run(runCtx, time.Millisecond) }()
	for w.Acked() < 300 {
		time.Sleep(10 * time.Millisecond)
	}
	if err := w.CheckNoAckedLost(ctx); err != nil {
		t.Errorf("CheckNoAckedLost while publishing = %v", err)
	}
	stop()
	<-done
	if err := w.CheckNoAckedLost(ctx); err != nil {
		t.Errorf("CheckNoAckedLost = %v", err)
	}
	if err := w.CheckNoGaps(ctx); err != nil {
		t.Errorf("CheckNoGaps = %v", err)
	}
	if d := w.Outage(from, time.Now()); d != 0 {
		t.Errorf("Outage = %s, want 0 (no publish failed)", d)
	}
	s, err := w.js.Stream(ctx, Stream)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteMsg(ctx, 100); err != nil {
		t.Fatal(err)
	}
	if err := w.CheckNoGaps(ctx); err == nil || !strings.Contains(err.Error(), "sequence gap") {
		t.Errorf("CheckNoGaps after deleting seq 100 = %v, want a gap", err)
	}
}
