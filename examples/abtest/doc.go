// Package abtest shows A/B tests of recovery strategies in go test: is a
// strategy significantly better than the baseline, and did a change make
// resilience worse? Strategies are fakes.Strategy values (healing knobs of
// the fake cluster), each run a fresh cluster seeded by the run, in virtual
// time; score samples you collected elsewhere compare the same way.
//
//	go test ./examples/abtest -v
package abtest
