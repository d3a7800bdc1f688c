package arenatest_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/ares-arena/arena/arenatest"
)

// recorder is a fake arenatest.TB that records what a helper does with it.
// FailNow ends the helper's goroutine, as testing.T's does.
type recorder struct {
	name string

	mu       sync.Mutex
	errors   []string
	logs     []string
	attrs    []string // "key=value"
	stopped  bool
	cleanups []func()
}

var _ arenatest.TB = (*recorder)(nil)

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func (r *recorder) FailNow() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// Attr records t.Attr calls (go test -json's "attr" events).
func (r *recorder) Attr(key, value string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attrs = append(r.attrs, key+"="+value)
}

// failed reports whether Errorf was called.
func (r *recorder) failed() bool { return len(r.errors) > 0 }

// errorText is every error, one after the other.
func (r *recorder) errorText() string { return strings.Join(r.errors, "\n---\n") }

// record runs fn with a fresh recorder named name on a goroutine of its
// own, as testing runs a test, then the recorder's cleanups, last first.
func record(name string, fn func(t arenatest.TB)) *recorder {
	r := &recorder{name: name}
	runRecorded(r, func() { fn(r) })
	return r
}

func runRecorded(r *recorder, fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// ginkgoRecorder is a recorder with GinkgoT()'s report entries.
type ginkgoRecorder struct {
	*recorder
	entries []string // "name=value"
}

func (g *ginkgoRecorder) AddReportEntryVisibilityFailureOrVerbose(name string, args ...any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.entries = append(g.entries, fmt.Sprintf("%s=%v (%T)", name, args[0], args[0]))
}

// benchRecorder is a recorder with testing.B's ReportMetric.
type benchRecorder struct {
	*recorder
	metrics []string
}

func (b *benchRecorder) ReportMetric(n float64, unit string) {
	b.metrics = append(b.metrics, fmt.Sprintf("%g %s", n, unit))
}
