// Package cigate is a resilience gate for CI: a go test suite that fails
// the build when the system's grade drops below ARENA_MIN_GRADE (default B),
// and a workflow (github-workflow.yml, for GitHub Actions) that runs it,
// keeps the JUnit reports arenatest writes under ARENA_REPORT_DIR, and
// publishes them. Copy both into your repository and point the suite at your
// system (arenatest.WithRuntime).
//
//	ARENA_MIN_GRADE=A ARENA_REPORT_DIR=$PWD/arena-reports go test ./examples/ci-gate -count=1
//
// A failing build prints, for each run below the gate, the score, the grade,
// the worst faults and the command that replays it with its seed; the JUnit
// files carry the same, one testcase per step and per gate criterion.
package cigate
