//go:build race

package shrink_test

// raceDetector: the race detector slows the virtual runs twentyfold, so
// the longest proofs run shorter under it (and in full without it: the
// Makefile's unit target runs them so).
const raceDetector = true
