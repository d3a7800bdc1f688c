package raftsim

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/ares-arena/arena/sim"
)

// gRPC runs unchanged on sim's network in a bubble: a server's Serve on a
// node's listener, a client through grpc.WithContextDialer. A killed
// server's calls fail; restarted, it serves again, and the client's
// reconnect backoff runs in simulated time.
func TestGRPC(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := sim.New()
		defer w.Close(context.Background())
		var srv *grpc.Server
		_, err := w.AddNode("svc", sim.NodeConfig{RestartAfter: 5 * time.Second,
			Start: func(ctx context.Context, n *sim.Node) error {
				l, err := n.Listen(":50051")
				if err != nil {
					return err
				}
				srv = grpc.NewServer()
				healthpb.RegisterHealthServer(srv, health.NewServer())
				go srv.Serve(l)
				return nil
			},
			Stop: func(ctx context.Context, n *sim.Node) error { srv.Stop(); return nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		client, _ := w.AddNode("client", sim.NodeConfig{})
		cc, err := grpc.NewClient("passthrough:///svc:50051", grpc.WithContextDialer(client.ContextDialer()),
			grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		hc := healthpb.NewHealthClient(cc)
		check := func() error {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
			return err
		}
		if err := check(); err != nil {
			t.Fatalf("Check = %v", err)
		}
		if err := w.Node("svc").Kill(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := check(); err == nil {
			t.Error("Check of a killed server succeeded")
		}
		start := time.Now()
		for check() != nil {
			time.Sleep(100 * time.Millisecond)
		}
		if took := time.Since(start); took < 4*time.Second || took > 30*time.Second {
			t.Errorf("served again after %s, want after the 5s restart (and gRPC's reconnect backoff)", took)
		}
	})
}
