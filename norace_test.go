//go:build !race

package arena_test

// raceDetector: see race_test.go.
const raceDetector = false
