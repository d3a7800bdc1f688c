package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/ares-arena/arena/arenahttp"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
)

// shutdownGrace bounds how long serve waits for requests in flight when it
// is told to stop; within interruptGrace, so that serve ends by itself.
const shutdownGrace = time.Second

type serveOptions struct {
	system         systemOptions
	addr           string
	apiKey         string
	maxScenarioRun time.Duration
	maxSubscribers int
	bodyLimit      int64
	retention      int
	maxSurvival    time.Duration
}

// serveMemoryLimit is the soft memory limit serve runs under when
// GOMEMLIMIT does not set one: its memory is bounded by its inputs (body
// limit, concurrency caps), and the limit keeps the garbage of 64 megabyte
// bodies parsed at once from doubling the heap (make serve-rss). A live
// heap above it is not refused, only collected more often.
const serveMemoryLimit = 192 << 20

// serveRetention is how many events a server keeps for stream replay by
// default: a server runs for days, so less than a run's store keeps.
const serveRetention = 10_000

func newServeCmd(e *env) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API (actions, scenarios, survival, event stream, metrics) over the fake cluster",
		Long: "Serve arena's HTTP API over a fake cluster in real time: inject faults, run scenarios and\n" +
			"survival, follow the event stream (Server-Sent Events at /arena/stream) and scrape\n" +
			"Prometheus metrics at /metrics. The routes are documented in package arenahttp.\n\n" +
			"A server runs in real time: virtual time only advances inside a run, which a live\n" +
			"system watched from outside cannot follow. To serve your own system, mount\n" +
			"arenahttp.NewHandler over a Service built on its RuntimeProvider in your program.\n\n" +
			"Every route requires the API key (--api-key, or the ARENA_API_KEY environment\n" +
			"variable, which keeps it out of the process list) when one is set, in X-API-Key or\n" +
			"Authorization: Bearer. Without a key, serve listens on loopback addresses only.\n" +
			"SIGINT or SIGTERM shuts it down gracefully: runs in progress end and every fault\n" +
			"still in place is lifted (GET /arena/faults lists them) before it exits. It runs\n" +
			"under a soft memory limit of 192 MiB unless GOMEMLIMIT sets another.\n\n" +
			"A live dashboard is served at /arena/ui/ (the URL is printed): health over time,\n" +
			"active faults to lift, scenarios and survival runs to start and stop, the event\n" +
			"log. With a key, the page asks for it once and keeps a session cookie instead.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return serve(cmd.Context(), e, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on (port 0: any free port, printed)")
	f.StringVar(&o.apiKey, "api-key", "", "API key every route requires (default $ARENA_API_KEY)")
	f.Uint64Var(&o.system.seed, "seed", 0, "seed of the fake workload and of selectors outside runs (0: drawn and printed)")
	f.IntVar(&o.system.workers, "workers", fakes.DefaultWorkers, "number of workers of the fake cluster")
	f.DurationVar(&o.maxScenarioRun, "max-scenario-run", arenahttp.DefaultMaxScenarioRun, "longest a scenario run over HTTP may take")
	f.IntVar(&o.maxSubscribers, "max-streams", arenahttp.DefaultMaxSubscribers, "event streams open at once at most")
	f.Int64Var(&o.bodyLimit, "body-limit", arenahttp.DefaultBodyLimit, "largest request body in bytes")
	f.DurationVar(&o.maxSurvival, "max-survival", arenahttp.DefaultMaxSurvival, "longest a survival run started over HTTP may last")
	f.IntVar(&o.retention, "retention", serveRetention, "events kept in memory for stream replay, and flight recorder entries (each a ring)")
	return cmd
}

func serve(ctx context.Context, e *env, o serveOptions) error {
	if o.apiKey == "" {
		o.apiKey = os.Getenv("ARENA_API_KEY")
	}
	if err := arenahttp.CheckAPIKey(o.apiKey); err != nil {
		return badInput(fmt.Errorf("--api-key (or ARENA_API_KEY): %w", err))
	}
	switch {
	case checkDuration("max-scenario-run", o.maxScenarioRun) != nil:
		return checkDuration("max-scenario-run", o.maxScenarioRun)
	case o.maxSubscribers <= 0 || o.maxSubscribers > maxStreams:
		return badInput(fmt.Errorf("--max-streams: want 1 to %d, got %d", maxStreams, o.maxSubscribers))
	case o.bodyLimit <= 0 || o.bodyLimit > maxBodyLimit:
		return badInput(fmt.Errorf("--body-limit: want 1 to %d bytes, got %d", maxBodyLimit, o.bodyLimit))
	case checkDuration("max-survival", o.maxSurvival) != nil:
		return checkDuration("max-survival", o.maxSurvival)
	case o.retention <= 0 || o.retention > maxRetention:
		return badInput(fmt.Errorf("--retention: want 1 to %d, got %d", maxRetention, o.retention))
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(serveMemoryLimit))
	}
	loopback, err := isLoopback(o.addr)
	if err != nil {
		return badInput(fmt.Errorf("--addr: %w", err))
	}
	if !loopback && o.apiKey == "" {
		return badInput(fmt.Errorf("--addr %s is not a loopback address: set an API key (--api-key or ARENA_API_KEY) to serve beyond this machine", o.addr))
	}
	if o.system.seed == 0 {
		o.system.seed = engine.DrawSeed()
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	flight := fakes.NewFlightRecorder(fakes.WithFlightCapacity(o.retention))
	o.system.options = []engine.Option{engine.WithRegisterer(reg), engine.WithFlightRecorder(flight)}
	o.system.events = []events.Option{events.WithRetention(o.retention)}
	sys, err := newSystem(o.system) // real time: o.system.virtual is false
	if err != nil {
		return err
	}
	defer sys.store.Close()
	h := arenahttp.NewHandler(sys.svc,
		arenahttp.WithAPIKey(o.apiKey), arenahttp.WithEvents(sys.store), arenahttp.WithGatherer(reg),
		arenahttp.WithFlightRecorder(flight), arenahttp.WithMaxScenarioRun(o.maxScenarioRun),
		arenahttp.WithMaxSubscribers(o.maxSubscribers), arenahttp.WithBodyLimit(o.bodyLimit),
		arenahttp.WithMaxSurvival(o.maxSurvival),
		arenahttp.WithLogger(slog.New(slog.NewTextHandler(e.stderr, nil))))

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return infra(fmt.Errorf("--addr: %w", err))
	}
	srv := newServer(h)
	auth := "no API key (loopback only)"
	if o.apiKey != "" {
		auth = "API key required"
	}
	fmt.Fprintf(e.stdout, "arena: serving on http://%s (fake cluster, %d workers, real time, seed %d, %s)\n", ln.Addr(), o.system.workers, o.system.seed, auth)
	fmt.Fprintf(e.stdout, "arena: dashboard: %s\n", dashboardURL(ln.Addr()))

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served: // the listener failed
		h.Close()
		return infra(fmt.Errorf("serve: %w", err))
	case <-ctx.Done():
	}
	fmt.Fprintln(e.stdout, "arena: shutting down")
	// Faults still in place when the server stops are lifted: a pause sent
	// without a duration must not outlive the process that sent it.
	defer rollback(e, sys.svc)
	// The streams never go idle and a survival run may be going: the
	// handler ends them first (a run rolls back its own faults), then the
	// server waits for what is left.
	h.Close()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return infra(fmt.Errorf("shutdown: %w", err))
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return infra(fmt.Errorf("serve: %w", err))
	}
	return nil
}

// serveSendBuffer is the kernel's send buffer of each connection serve
// accepts (Linux doubles it). Left to itself the kernel grows it to
// megabytes (net.ipv4.tcp_wmem), all of which a client that never reads
// has the server fill: 4 MiB of answers per connection, made again each
// time it reconnects. Bounded, a reader that stops costs a few answers,
// and the write deadline ends it.
const serveSendBuffer = 128 << 10

// newServer is the http.Server serve runs h on.
func newServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler: h,
		ConnState: func(c net.Conn, s http.ConnState) {
			if tc, ok := c.(*net.TCPConn); ok && s == http.StateNew {
				_ = tc.SetWriteBuffer(serveSendBuffer)
			}
		},
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// No server-wide ReadTimeout or WriteTimeout: event streams and
		// scenario runs are long by design, and a ReadTimeout would end
		// their contexts. The handler bounds each body's read instead
		// (arenahttp.WithBodyReadTimeout, after the API key is checked, or
		// before a slot is taken for a public request), closes the
		// connection on 401/408/413, and gives every answer a write
		// deadline of its own (arenahttp.WithWriteTimeout).
		MaxHeaderBytes: 64 << 10,
	}
}

// rollback lifts every fault the service still holds and says what became
// of each, within the service's rollback timeout.
func rollback(e *env, svc *engine.Service) {
	for _, rb := range svc.Rollback(context.Background()) {
		fmt.Fprintf(e.stdout, "arena: rollback: %s %s %s: %s\n", rb.ActionID, rb.Type, rb.TargetID, rb.Detail)
	}
}

// dashboardURL is where the dashboard of a server listening on addr opens
// from this machine: an unspecified address (every interface) is reached
// on loopback.
func dashboardURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + arenahttp.DashboardPath
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	return "http://" + net.JoinHostPort(host, port) + arenahttp.DashboardPath
}

// isLoopback reports whether addr (host:port) listens on this machine only:
// "localhost" or a loopback IP. An empty host is every interface, and other
// names are not trusted to resolve to loopback.
func isLoopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, err
	}
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback(), nil
}
