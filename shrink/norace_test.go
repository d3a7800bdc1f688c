//go:build !race

package shrink_test

// raceDetector: see race_test.go.
const raceDetector = false
