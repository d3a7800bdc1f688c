package arenatest

import (
	"context"
	"testing"
)

// TB is the part of a test that the helpers use: *testing.T, *testing.B,
// Ginkgo's GinkgoT() and any recording fake satisfy it. Helper is called
// when the TB has it.
//
// Failures go through Errorf, always from the goroutine that called the
// helper; FailNow follows only when there is no report to return (a
// scenario that cannot be loaded, an option that does not apply, a run that
// could not be made). Under Ginkgo, Errorf already ends the spec.
type TB interface {
	Errorf(format string, args ...any)
	FailNow()
	Logf(format string, args ...any)
	Cleanup(func())
	Name() string
}

var (
	_ TB = (*testing.T)(nil)
	_ TB = (*testing.B)(nil)
	_ TB = testing.TB(nil)
)

// Methods a TB may have besides TB's. The helpers look for them with type
// assertions, so that TB stays small and Ginkgo stays out of this package.
type (
	// helper: the helpers' frames are left out of the file:line of a
	// failure (testing's t.Helper).
	helper interface{ Helper() }
	// contexter: *testing.T and GinkgoT() have a context that ends when
	// the test does; a run is cancelled with it.
	contexter interface{ Context() context.Context }
	// attrer: t.Attr (Go 1.25) prints "=== ATTR" lines, which go test
	// -json turns into "attr" events.
	attrer interface{ Attr(key, value string) }
	// ginkgoReporter: GinkgoT() adds report entries, which Ginkgo writes
	// to its --json-report and --junit-report files.
	ginkgoReporter interface {
		AddReportEntryVisibilityFailureOrVerbose(name string, args ...any)
	}
	// metricReporter: *testing.B reports custom metrics for benchstat.
	metricReporter interface{ ReportMetric(n float64, unit string) }
)

// isBenchmark: a benchmark's logs are printed on every run; its score goes
// to ReportMetric instead of a log line.
func isBenchmark(t TB) bool {
	_, ok := t.(metricReporter)
	return ok
}
