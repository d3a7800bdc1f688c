// Package gotest shows arena in plain go test, with testify: a built-in
// scenario, a scenario file, a survival run, an A/B test, a benchmark and
// the conformance suite. Run it with
//
//	go test ./examples/gotest -v
//	go test ./examples/gotest -run '^TestLeaderFailover$' -arena.seed=7   # replay a seed
//	ARENA_REPORT_DIR=$PWD/reports go test ./examples/gotest                # JSON, JUnit and text reports
//	go test ./examples/gotest -json | grep '"attr"'                        # scores as test attributes
//	go test ./examples/gotest -run '^$' -bench . -count 5 | benchstat -    # scores as a benchmark metric
package gotest
