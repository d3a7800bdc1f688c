package natscluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/history"
)

// Stream is the replicated stream the workload publishes to.
const (
	Stream  = "ORDERS"
	Subject = "orders.new"
)

// Attempt is one publish: when it started, whether it was acknowledged.
type Attempt struct {
	At     time.Time // the publish started
	Done   time.Time // its answer (or its failure) came
	OK     bool
	Err    string // why it failed
	Server string // the server the client was connected to
}

// Workload publishes numbered messages to an R3 stream, one at a time, each
// with a short timeout, and records every publish in a history (an append
// of its number, acknowledged with its stream sequence) for arena's checks
// (Checks), and every attempt for its own outage figures.
type Workload struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	timeout time.Duration
	rec     *history.Recorder[history.LogOp]

	mu       sync.Mutex
	attempts []Attempt
	probed   int // attempts the probe has seen
	acked    int
	log      []string

	// The checks' reader: a durable consumer, what it has read (sequence →
	// payload) and up to which sequence. Checks run one at a time.
	reader  jetstream.Consumer
	seen    map[uint64]int64
	readSeq uint64
}

// NewWorkload connects to the servers at urls and creates the stream with
// this many replicas (3 on the cluster). Its history is on clock, the
// run's.
func NewWorkload(ctx context.Context, clk clock.Clock, urls []string, timeout time.Duration, replicas int) (*Workload, error) {
	w := &Workload{timeout: timeout, rec: history.NewRecorder[history.LogOp](clk)}
	nc, err := connect(urls, timeout, w.logf)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = js.CreateStream(cctx, jetstream.StreamConfig{Name: Stream, Subjects: []string{"orders.>"},
			Replicas: replicas, Storage: jetstream.FileStorage})
		cancel()
		if err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("create stream: %w", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	w.reader, err = js.CreateOrUpdateConsumer(cctx, Stream, arenaReader("checker"))
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("create the checks' consumer: %w", err)
	}
	w.nc, w.js, w.seen = nc, js, map[uint64]int64{}
	return w, nil
}

func (w *Workload) logf(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.log = append(w.log, s)
}

// Log returns the workload connection's events (disconnects, reconnects).
func (w *Workload) Log() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.log...)
}

// connect connects to the cluster as a client that fails over fast: a
// server that stops answering (paused, partitioned) is given up after two
// missed pings of 250ms, not the default two minutes. The servers are tried
// in order, not at random, and only those given (the ones the servers
// advertise are their addresses on the agents' network), so that a run
// goes through the same servers each time.
func connect(urls []string, timeout time.Duration, log func(string)) (*nats.Conn, error) {
	if log == nil {
		log = func(string) {}
	}
	return nats.Connect(joinURLs(urls), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond),
		nats.Timeout(timeout), nats.RetryOnFailedConnect(true), nats.DontRandomize(), nats.IgnoreDiscoveredServers(),
		nats.PingInterval(250*time.Millisecond), nats.MaxPingsOutstanding(2),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			log(fmt.Sprintf("%s disconnected from %s: %v", time.Now().Format("15:04:05.000"), nc.ConnectedUrlRedacted(), err))
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log(fmt.Sprintf("%s reconnected to %s", time.Now().Format("15:04:05.000"), nc.ConnectedUrlRedacted()))
		}))
}

// Probe is arena's health probe: the outcome of the workload's latest
// publish. Healthy means what a client needs, the stream takes writes, seen
// through the same publishes the workload measures its outages with, so
// that arena's TTR and the workload's outage describe one thing, measured
// two ways (arena: from the fault's start to its first of StableSamples
// healthy samples; the workload: from the fault's start to the start of its
// first acknowledged publish after the last failed one).
//
// A sample is unhealthy when the latest publish failed or one failed since
// the previous sample: a lone failed publish between two samples is seen,
// as the workload sees it.
func (w *Workload) Probe(context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.attempts)
	var failed *Attempt
	for i := n - 1; i >= w.probed && i >= 0; i-- {
		if !w.attempts[i].OK {
			failed = &w.attempts[i]
			break
		}
	}
	if n > 0 && !w.attempts[n-1].OK {
		failed = &w.attempts[n-1]
	}
	w.probed = n
	if failed != nil {
		return fmt.Errorf("publish via %s: %s", failed.Server, failed.Err)
	}
	return nil
}

// retry runs read until it succeeds or 10s have gone: a client
// reconnecting after a fault cannot read the stream at once. The last error
// is returned.
func retry(ctx context.Context, read func(context.Context) ([]history.Message, error)) ([]history.Message, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		msgs, err := read(ctx)
		if err == nil || ctx.Err() != nil {
			return msgs, err
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func joinURLs(urls []string) string {
	s := ""
	for i, u := range urls {
		if i > 0 {
			s += ","
		}
		s += u
	}
	return s
}

// Run publishes until ctx ends, pausing pace between acknowledged
// publishes (a failed one is retried at once).
func (w *Workload) Run(ctx context.Context, pace time.Duration) {
	for n := 1; ctx.Err() == nil; n++ {
		id := strconv.Itoa(n)
		start := time.Now()
		op := history.Append(Stream, int64(n))
		call := w.rec.Invoke(0, op) // one client, one publish at a time
		pctx, cancel := context.WithTimeout(ctx, w.timeout)
		ack, err := w.js.Publish(pctx, Subject, []byte(id), jetstream.WithMsgID(id))
		cancel()
		switch {
		case err == nil:
			call.OK(op.Acked(int64(ack.Sequence)))
		case errors.Is(err, nats.ErrNoResponders):
			call.Fail(err) // nobody took it: not stored
		default:
			call.Unknown() // a timeout, a lost connection: it may be stored
		}
		if ctx.Err() != nil {
			return
		}
		a := Attempt{At: start, Done: time.Now(), OK: err == nil, Server: w.nc.ConnectedServerName()}
		if err != nil {
			a.Err = err.Error()
		}
		w.mu.Lock()
		if err == nil {
			w.acked++
		}
		w.attempts = append(w.attempts, a)
		w.mu.Unlock()
		if err == nil {
			select {
			case <-ctx.Done():
			case <-time.After(pace):
			}
		} else if d := w.timeout - time.Since(start); d > 0 {
			time.Sleep(min(d, 50*time.Millisecond)) // refused at once: do not spin
		}
	}
}

// Close closes the connection.
func (w *Workload) Close() { w.nc.Close() }

// Outage returns how long after from the workload took to work again for
// good, looking at the attempts that ended in [from, to) (a publish that
// started before a fault and failed after it failed because of it): from
// from to the acknowledgement of the first publish that succeeded after the
// last failed one (when the client saw it work). Zero when no publish in
// the window failed. This is the workload's own TTR, measured the way arena measures
// its (from the fault's start to the first good sample), so arena's can be
// later by up to two probe intervals (see Probe), never earlier.
func (w *Workload) Outage(from, to time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	lastFail := -1
	for i, a := range w.attempts {
		if !a.Done.Before(from) && a.Done.Before(to) && !a.OK {
			lastFail = i
		}
	}
	if lastFail < 0 {
		return 0
	}
	for _, a := range w.attempts[lastFail+1:] {
		if a.OK {
			return a.Done.Sub(from)
		}
	}
	return to.Sub(from)
}

// Failures returns the distinct reasons (and servers) of the failed
// publishes that ended in [from, to), for the log.
func (w *Workload) Failures(from, to time.Time) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	count := map[string]int{}
	var order []string
	for _, a := range w.attempts {
		if a.OK || a.Done.Before(from) || !a.Done.Before(to) {
			continue
		}
		k := a.Err + " (via " + a.Server + ")"
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = fmt.Sprintf("%d× %s", count[k], k)
	}
	return out
}

// arenaReader is the checks' consumer: durable, reading from the start,
// acknowledging nothing.
func arenaReader(name string) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{Durable: name, AckPolicy: jetstream.AckNonePolicy}
}

// Acked returns the number of acknowledged publishes.
func (w *Workload) Acked() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.acked
}

// Checks are arena's checks of the stream, on the workload's history and
// what the stream holds (Read): no acknowledged message lost, no sequence
// gap, no message stored twice.
func (w *Workload) Checks() []fault.Check {
	return []fault.Check{
		history.NoLostWrites("no acked message lost", w.rec, w.Read),
		history.NoGaps("no sequence gap", w.rec, w.Read),
		history.NoDuplicates("no duplicate message", w.rec, w.Read),
	}
}

// Read reads every message of the stream up to its last sequence: new ones
// through a durable consumer made at the start (reading needs no new
// consumer, so no meta leader), and any sequence the consumer skipped (it
// may, when its leader moves) by sequence. A sequence the stream does not
// hold is left out: that is a gap. Retried for up to 10s while the stream
// cannot be reached.
func (w *Workload) Read(ctx context.Context) ([]history.Message, error) {
	return retry(ctx, w.read)
}

func (w *Workload) read(ctx context.Context) ([]history.Message, error) {
	upTo, err := w.readNew(ctx)
	if err != nil {
		return nil, err
	}
	var s jetstream.Stream
	for seq := uint64(1); seq <= upTo; seq++ {
		if _, ok := w.seen[seq]; ok {
			continue
		}
		if s == nil {
			if s, err = w.js.Stream(ctx, Stream); err != nil {
				return nil, err
			}
		}
		m, err := s.GetMsg(ctx, seq)
		switch {
		case errors.Is(err, jetstream.ErrMsgNotFound):
		case err != nil:
			return nil, err
		default:
			v, err := strconv.ParseInt(string(m.Data), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("sequence %d: payload %q: %w", seq, m.Data, err)
			}
			w.seen[seq] = v
		}
	}
	out := make([]history.Message, 0, len(w.seen))
	for _, seq := range slices.Sorted(maps.Keys(w.seen)) {
		out = append(out, history.Message{Key: Stream, Seq: int64(seq), Value: w.seen[seq]})
	}
	return out, nil
}

// readNew reads the messages the reader has not seen, up to the stream's
// last sequence when it starts, and returns that sequence.
func (w *Workload) readNew(ctx context.Context) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	info, err := w.reader.Info(ctx)
	if err != nil {
		return 0, err
	}
	last := info.Delivered.Stream + info.NumPending
	for w.readSeq < last {
		batch, err := w.reader.Fetch(1000, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			return 0, err
		}
		for m := range batch.Messages() {
			md, err := m.Metadata()
			if err != nil {
				return 0, err
			}
			v, err := strconv.ParseInt(string(m.Data()), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("sequence %d: payload %q: %w", md.Sequence.Stream, m.Data(), err)
			}
			w.seen[md.Sequence.Stream] = v
			w.readSeq = md.Sequence.Stream
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			return 0, err
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
	}
	return last, nil
}
