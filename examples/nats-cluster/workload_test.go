package natscluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// TestWorkloadChecks runs the workload against one embedded JetStream
// server: arena's checks of its history pass on an intact stream, the
// outage of a window with no failure is zero, and a deleted acknowledged
// message is found lost, and its sequence a gap.
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
	w, err := NewWorkload(ctx, clock.Real{}, []string{srv.ClientURL()}, time.Second, 1)
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
	checks := w.Checks()
	for _, c := range checks {
		if err := c.Run(ctx); err != nil {
			t.Errorf("%s while publishing = %v", c.Name, err)
		}
	}
	stop()
	<-done
	for _, c := range checks {
		if err := c.Run(ctx); err != nil {
			t.Errorf("%s = %v", c.Name, err)
		}
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
	w.seen = map[uint64]int64{} // read the stream again from its start
	w.reader, err = w.js.CreateOrUpdateConsumer(ctx, Stream, arenaReader("checker-2"))
	if err != nil {
		t.Fatal(err)
	}
	w.readSeq = 0
	for _, c := range checks[:2] { // lost, gap
		var v *fault.Violation
		if err := c.Run(ctx); !errors.As(err, &v) || !strings.Contains(v.Summary+strings.Join(v.Details, " "), "100") && !opsMention(v, "= 100") {
			t.Errorf("%s after deleting seq 100 = %v, want a violation naming it", c.Name, err)
		}
	}
}

func opsMention(v *fault.Violation, s string) bool {
	for _, op := range v.Ops {
		if strings.Contains(op.Op, s) {
			return true
		}
	}
	return false
}
