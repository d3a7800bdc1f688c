// Package ginkgoexample shows arena in a Ginkgo suite: specs with labels,
// arenatest's helpers on GinkgoT() (their scores become report entries), the
// matchers, an A/B result added with arenaginkgo, and a ReportAfterSuite that
// prints the scores of the suite. Run it with
//
//	go test ./examples/ginkgo -ginkgo.v
//	go test ./examples/ginkgo -ginkgo.label-filter='!slow'
//	go test ./examples/ginkgo -ginkgo.json-report=report.json -ginkgo.junit-report=junit.xml
//	ginkgo --label-filter=survival --junit-report=junit.xml ./examples/ginkgo
//
// In the JUnit file each spec's arena figures (arena.score, arena.grade,
// arena.seed, …) are properties of its testcase.
package ginkgoexample
