package arenahttp

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
)

// EventSource is what GET /arena/stream reads: the store the service appends
// its "arena" stream to. *events.MemoryStore implements it.
type EventSource interface {
	Read(ctx context.Context, f events.Filter, limit int) ([]events.Event, error)
	Subscribe(ctx context.Context, f events.Filter) (*events.Subscription, error)
	StreamVersion(ctx context.Context, stream string) (uint64, error)
	Stats() events.Stats
}

var _ EventSource = (*events.MemoryStore)(nil)

// Defaults of the handler's options.
const (
	DefaultBodyLimit      = 1 << 20 // bytes; larger bodies are refused with 413
	DefaultMaxScenarioRun = 10 * time.Minute
	DefaultMaxSubscribers = 64
	DefaultHeartbeat      = 15 * time.Second
	DefaultRetry          = 3 * time.Second
	DefaultWriteTimeout   = 10 * time.Second
	// DefaultMaxStreamAge ends an event stream after it has been open
	// this long; the client resumes with Last-Event-ID and loses nothing.
	// Without it, idle clients could hold every stream slot for good.
	DefaultMaxStreamAge = 10 * time.Minute
	// DefaultStreamIdle ends an event stream that has sent nothing but
	// heartbeats for this long (WithStreamIdle).
	DefaultStreamIdle = 2 * time.Minute
)

// Option configures a Handler. Options are small named values (Uber's
// functional-options form), so that tests can compare them.
type Option interface {
	apply(*options)
}

type options struct {
	apiKey         string
	events         EventSource
	flight         engine.FlightRecorder
	gatherer       prometheus.Gatherer
	bodyLimit      int64
	maxScenarioRun time.Duration
	maxSubscribers int
	heartbeat      time.Duration
	retry          time.Duration
	writeTimeout   time.Duration
	maxStreamAge   time.Duration
	streamIdle     time.Duration
	logger         *slog.Logger

	bodyReadTimeout time.Duration
	maxConcurrent   int
	maxSurvival     time.Duration

	sessionTTL     time.Duration // session.go
	trustedOrigins []string
	keyGuesses     int // guesses.go
	keyGuessRefill time.Duration

	publicTotal, publicPerAddress int // public.go
}

func defaultOptions() options {
	return options{
		bodyLimit: DefaultBodyLimit, maxScenarioRun: DefaultMaxScenarioRun,
		maxSubscribers: DefaultMaxSubscribers, heartbeat: DefaultHeartbeat,
		retry: DefaultRetry, writeTimeout: DefaultWriteTimeout, maxStreamAge: DefaultMaxStreamAge,
		streamIdle: DefaultStreamIdle, logger: slog.Default(),
		bodyReadTimeout: DefaultBodyReadTimeout, maxConcurrent: DefaultMaxConcurrent,
		maxSurvival: DefaultMaxSurvival, sessionTTL: DefaultSessionTTL,
		keyGuesses: DefaultKeyGuesses, keyGuessRefill: DefaultKeyGuessRefill,
		publicTotal: DefaultPublicCapacity, publicPerAddress: DefaultPublicPerAddress,
	}
}

type apiKeyOption string

func (o apiKeyOption) apply(s *options) { s.apiKey = string(o) }

// WithAPIKey requires the key on every route (see Handler.SetAPIKey).
func WithAPIKey(key string) Option { return apiKeyOption(key) }

type eventsOption struct{ src EventSource }

func (o eventsOption) apply(s *options) { s.events = o.src }

// WithEvents serves GET /arena/stream from src, the store the service
// appends to. Without it the stream answers 503.
func WithEvents(src EventSource) Option { return eventsOption{src} }

type flightOption struct{ fr engine.FlightRecorder }

func (o flightOption) apply(s *options) { s.flight = o.fr }

// WithFlightRecorder serves GET /arena/flight/timeline and /diagnostics
// from fr, the recorder the service was given (engine.WithFlightRecorder).
// Without one, or when fr is not an engine.FlightReader, they answer 503.
func WithFlightRecorder(fr engine.FlightRecorder) Option { return flightOption{fr} }

type gathererOption struct{ g prometheus.Gatherer }

func (o gathererOption) apply(s *options) { s.gatherer = o.g }

// WithGatherer serves GET /metrics from g: pass the registry the service's
// collectors are registered on (engine.WithRegisterer). Without it /metrics
// answers 503; arena never falls back to the global registry.
func WithGatherer(g prometheus.Gatherer) Option { return gathererOption{g} }

type bodyLimitOption int64

func (o bodyLimitOption) apply(s *options) { s.bodyLimit = int64(o) }

// WithBodyLimit caps request bodies (default 1 MiB); a larger one is 413.
// A public request's is capped at PublicBodyLimit too.
func WithBodyLimit(n int64) Option {
	if n <= 0 {
		panic("arena: WithBodyLimit: limit must be positive")
	}
	return bodyLimitOption(n)
}

type maxScenarioRunOption time.Duration

func (o maxScenarioRunOption) apply(s *options) { s.maxScenarioRun = time.Duration(o) }

// WithMaxScenarioRun bounds the wall-clock time of POST /arena/scenario/run
// (default 10m). A real-time scenario planned longer than it is refused
// (400); one that runs into it is cut short (504, with the partial report).
func WithMaxScenarioRun(d time.Duration) Option {
	if d <= 0 {
		panic("arena: WithMaxScenarioRun: duration must be positive")
	}
	return maxScenarioRunOption(d)
}

type maxSubscribersOption int

func (o maxSubscribersOption) apply(s *options) { s.maxSubscribers = int(o) }

// WithMaxSubscribers caps the open event streams (default 64); one more is
// refused with 503 and a Retry-After.
func WithMaxSubscribers(n int) Option {
	if n <= 0 {
		panic("arena: WithMaxSubscribers: cap must be positive")
	}
	return maxSubscribersOption(n)
}

type heartbeatOption time.Duration

func (o heartbeatOption) apply(s *options) { s.heartbeat = time.Duration(o) }

// WithHeartbeat sets how often a quiet event stream gets a comment line
// (default 15s), so that proxies keep it open and clients see it is alive.
func WithHeartbeat(d time.Duration) Option {
	if d <= 0 {
		panic("arena: WithHeartbeat: interval must be positive")
	}
	return heartbeatOption(d)
}

type retryOption time.Duration

func (o retryOption) apply(s *options) { s.retry = time.Duration(o) }

// WithRetry sets the reconnection delay the stream tells clients (default 3s).
func WithRetry(d time.Duration) Option {
	if d <= 0 {
		panic("arena: WithRetry: delay must be positive")
	}
	return retryOption(d)
}

type maxStreamAgeOption time.Duration

func (o maxStreamAgeOption) apply(s *options) { s.maxStreamAge = time.Duration(o) }

// WithMaxStreamAge ends each event stream after d (default 10m): the
// client reconnects after the retry delay and resumes with Last-Event-ID,
// so it loses nothing, and a slot an idle client held goes back to the
// pool at least that often.
func WithMaxStreamAge(d time.Duration) Option {
	if d <= 0 {
		panic("arena: WithMaxStreamAge: age must be positive")
	}
	return maxStreamAgeOption(d)
}

type streamIdleOption time.Duration

func (o streamIdleOption) apply(s *options) { s.streamIdle = time.Duration(o) }

// WithStreamIdle ends an event stream that has sent nothing but heartbeats
// for d (default 2m). Whether a client reads cannot be seen from here: its
// kernel takes what is sent until its buffers fill, hundreds of kilobytes,
// which heartbeats alone would take hours to do. With events going out, a
// client that stops reading fills them and is dropped at the write
// deadline (WithWriteTimeout); without, it would keep its slot until the
// maximum age. So an idle stream ends, telling its client to come back at
// once (retry: 250ms) with Last-Event-ID: a client that reads loses
// nothing, and one that does not gives its slot back.
func WithStreamIdle(d time.Duration) Option {
	if d <= 0 {
		panic("arena: WithStreamIdle: duration must be positive")
	}
	return streamIdleOption(d)
}

type writeTimeoutOption time.Duration

func (o writeTimeoutOption) apply(s *options) { s.writeTimeout = time.Duration(o) }

// WithWriteTimeout bounds the writing of every answer (default 10s): a
// client that does not read it in that time, plus a second for each 64 KiB
// of a large answer, is disconnected. It is a deadline per answer, armed
// when the handler starts (HTTP/1 only: on HTTP/2 a deadline resets the
// stream when it passes) and again at each write (so a long scenario run
// still gets its answer out), and per write on an event stream, cleared
// once the write is flushed.
func WithWriteTimeout(d time.Duration) Option {
	if d <= 0 {
		panic("arena: WithWriteTimeout: timeout must be positive")
	}
	return writeTimeoutOption(d)
}

type loggerOption struct{ l *slog.Logger }

func (o loggerOption) apply(s *options) { s.logger = o.l }

// WithLogger sets where recovered panics and stream errors are logged
// (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	if l == nil {
		panic("arena: WithLogger: nil logger")
	}
	return loggerOption{l}
}
