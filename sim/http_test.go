package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

// serveHTTP starts an HTTP server on node "api", port 8080, answering
// "hello from <path>" after work of simulated time.
func serveHTTP(t *testing.T, w *World, work time.Duration) {
	t.Helper()
	var srv *http.Server // one per incarnation: a closed http.Server does not serve again
	h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(work):
			fmt.Fprintf(rw, "hello from %s", r.URL.Path)
		case <-r.Context().Done(): // the client went away, or the server closed
		}
	})
	_, err := w.AddNode("api", NodeConfig{
		Start: func(ctx context.Context, n *Node) error {
			l, err := n.Listen(":8080")
			if err != nil {
				return err
			}
			srv = &http.Server{Handler: h}
			go srv.Serve(l)
			return nil
		},
		Stop: func(ctx context.Context, n *Node) error { return srv.Close() },
	})
	if err != nil {
		t.Fatal(err)
	}
}

func get(c *http.Client, url string) (string, error) {
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// net/http's own server and transport run unchanged over the world, in a
// bubble (the server's work takes simulated time, none of the wall clock)
// and in real time.
func TestHTTP(t *testing.T) {
	check := func(t *testing.T, work, timeout time.Duration) {
		w := New()
		serveHTTP(t, w, work)
		client, err := w.AddNode("client", NodeConfig{})
		if err != nil {
			t.Fatal(err)
		}
		c := client.HTTPClient(timeout)
		start := time.Now()
		for i := range 3 {
			body, err := get(c, fmt.Sprintf("http://api:8080/%d", i))
			if want := fmt.Sprintf("hello from /%d", i); body != want || err != nil {
				t.Errorf("GET /%d = %q, %v; want %q", i, body, err, want)
			}
		}
		if took := time.Since(start); took < 3*work {
			t.Errorf("3 requests took %s, want at least 3 × %s", took, work)
		}
		if err := w.Close(context.Background()); err != nil {
			t.Errorf("Close = %v", err)
		}
		if _, err := get(c, "http://api:8080/"); err == nil {
			t.Error("GET after the world closed succeeded")
		}
	}
	t.Run("bubble", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) { check(t, time.Hour, 2*time.Hour) })
	})
	t.Run("real time", func(t *testing.T) { check(t, 10*time.Millisecond, time.Minute) })
}

// A client timeout ends a request to a server that does not answer, in
// simulated time; a killed server's client sees its connection reset,
// and the restarted server answers again.
func TestHTTPTimeoutAndKill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := New()
		defer w.Close(context.Background())
		serveHTTP(t, w, 10*time.Second)
		client, _ := w.AddNode("client", NodeConfig{})
		c := client.HTTPClient(time.Second)
		start := time.Now()
		_, err := get(c, "http://api:8080/slow")
		var ne interface{ Timeout() bool }
		if !errors.As(err, &ne) || !ne.Timeout() || time.Since(start) != time.Second {
			t.Errorf("GET with a 1s timeout = %v after %s, want a timeout after 1s", err, time.Since(start))
		}
		api := w.Node("api")
		api.cfg.RestartAfter = 5 * time.Second
		if err := api.Kill(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := get(client.HTTPClient(time.Minute), "http://api:8080/"); err == nil {
			t.Error("GET from a killed server succeeded")
		}
		time.Sleep(6 * time.Second)
		if !api.Up() || api.Restarts() != 1 {
			t.Fatalf("after the restart delay: up %v, restarts %d", api.Up(), api.Restarts())
		}
		if body, err := get(client.HTTPClient(time.Minute), "http://api:8080/x"); err != nil || body != "hello from /x" {
			t.Errorf("GET after the restart = %q, %v", body, err)
		}
	})
}
