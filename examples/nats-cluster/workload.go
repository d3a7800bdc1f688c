package natscluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
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
// with a short timeout, and remembers every attempt and every
// acknowledgement (payload → stream sequence).
type Workload struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	timeout time.Duration

	mu       sync.Mutex
	attempts []Attempt
	probed   int // attempts the probe has seen
	acked    map[string]uint64
	log      []string

	// The checks' reader: a durable consumer, what it has read and up to
	// which sequence. Checks run one at a time.
	reader  jetstream.Consumer
	seen    map[string]uint64
	readSeq uint64
}

// NewWorkload connects to the servers at urls and creates the stream with
// this many replicas (3 on the cluster).
func NewWorkload(ctx context.Context, urls []string, timeout time.Duration, replicas int) (*Workload, error) {
	w := &Workload{timeout: timeout, acked: map[string]uint64{}}
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
	w.reader, err = js.CreateOrUpdateConsumer(cctx, Stream, jetstream.ConsumerConfig{Durable: "checker", AckPolicy: jetstream.AckNonePolicy})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("create the checks' consumer: %w", err)
	}
	w.nc, w.js, w.seen = nc, js, map[string]uint64{}
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

// retry runs a check until it passes or 10s have gone: a check that could
// not reach the stream (a client reconnecting) has not found a violation.
// The last error is returned.
func retry(ctx context.Context, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		err := check(ctx)
		if err == nil || ctx.Err() != nil || errors.Is(err, errViolation) {
			return err
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// errViolation marks a check's finding, as opposed to a failure to look.
var errViolation = errors.New("violation")

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
		pctx, cancel := context.WithTimeout(ctx, w.timeout)
		ack, err := w.js.Publish(pctx, Subject, []byte(id), jetstream.WithMsgID(id))
		cancel()
		if ctx.Err() != nil {
			return
		}
		a := Attempt{At: start, Done: time.Now(), OK: err == nil, Server: w.nc.ConnectedServerName()}
		if err != nil {
			a.Err = err.Error()
		}
		w.mu.Lock()
		w.attempts = append(w.attempts, a)
		if err == nil {
			w.acked[id] = ack.Sequence
		}
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

// Acked returns the number of acknowledged publishes.
func (w *Workload) Acked() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.acked)
}

// CheckNoAckedLost reads the stream's new messages through a durable
// consumer made at the start (reading needs no new consumer, so no meta
// leader) and fails if an acknowledged message up to the last one read is
// missing or at another sequence than its acknowledgement said.
func (w *Workload) CheckNoAckedLost(ctx context.Context) error {
	return retry(ctx, w.checkNoAckedLost)
}

func (w *Workload) checkNoAckedLost(ctx context.Context) error {
	upTo, err := w.readNew(ctx)
	if err != nil {
		return err
	}
	w.mu.Lock()
	var unseen []string
	for id, seq := range w.acked {
		if seq <= upTo && w.seen[id] != seq {
			unseen = append(unseen, id)
		}
	}
	w.mu.Unlock()
	// The reader may skip messages when its leader moves; what it did not
	// see is read from the stream directly, by sequence.
	var lost []string
	if len(unseen) > 0 {
		s, err := w.js.Stream(ctx, Stream)
		if err != nil {
			return err
		}
		for _, id := range unseen {
			w.mu.Lock()
			seq := w.acked[id]
			w.mu.Unlock()
			m, err := s.GetMsg(ctx, seq)
			switch {
			case errors.Is(err, jetstream.ErrMsgNotFound):
				lost = append(lost, fmt.Sprintf("%s (acked at %d, not in the stream)", id, seq))
			case err != nil:
				return err
			case string(m.Data) != id:
				lost = append(lost, fmt.Sprintf("%s (acked at %d, which holds %q)", id, seq, m.Data))
			default:
				w.mu.Lock()
				w.seen[id] = seq
				w.mu.Unlock()
			}
		}
	}
	if len(lost) > 0 {
		sort.Strings(lost)
		return fmt.Errorf("%w: %d acknowledged messages lost: %v", errViolation, len(lost), lost[:min(5, len(lost))])
	}
	return nil
}

// readNew reads the messages the reader has not seen, up to the stream's
// last sequence when it starts, and returns the last sequence read.
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
			data := string(m.Data())
			w.mu.Lock()
			w.seen[data] = md.Sequence.Stream
			w.mu.Unlock()
			w.readSeq = md.Sequence.Stream
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			return 0, err
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
	}
	return w.readSeq, nil
}

// CheckNoGaps fails if the stream's sequence has a gap: its first sequence
// is 1, nothing was deleted, and it holds last-first+1 messages.
func (w *Workload) CheckNoGaps(ctx context.Context) error { return retry(ctx, w.checkNoGaps) }

func (w *Workload) checkNoGaps(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := w.js.Stream(ctx, Stream)
	if err != nil {
		return err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return err
	}
	st := info.State
	if st.Msgs == 0 {
		return nil
	}
	if st.FirstSeq != 1 || st.NumDeleted != 0 || st.Msgs != st.LastSeq-st.FirstSeq+1 {
		return fmt.Errorf("%w: sequence gap: first %d, last %d, %d messages, %d deleted", errViolation, st.FirstSeq, st.LastSeq, st.Msgs, st.NumDeleted)
	}
	return nil
}
