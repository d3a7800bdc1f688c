package arenatest

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ares-arena/arena/fault"
)

// ReportDirEnv names the directory the helpers write their reports to
// when WithReportDir does not.
const ReportDirEnv = fault.ReportDirEnv

// reportFiles are the writers of one result's report files.
type reportFiles struct {
	json  any                     // encoded as indented JSON
	junit func(w io.Writer) error // JUnit XML
	text  func(w io.Writer) error // the human summary
}

// reportDir is where reports go: WithReportDir, else ARENA_REPORT_DIR,
// else nowhere ("").
func reportDir(o *options) string {
	if o.reportDir != "" {
		return o.reportDir
	}
	return os.Getenv(ReportDirEnv)
}

// written counts the report files of each name, so that a test that runs
// twice writes TestX.json, then TestX-2.json. A benchmark's b.N runs
// rewrite the same files: the last run's report is kept.
var written = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// write writes <dir>/<test name>.json, .xml and .txt and returns the path
// they share, without the extension ("" when no directory is set).
func (f reportFiles) write(t TB, o *options) (string, error) {
	dir := reportDir(o)
	if dir == "" {
		return "", nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	base := filepath.Join(dir, fileName(t.Name()))
	written.Lock()
	written.n[base]++
	if n := written.n[base]; n > 1 && !isBenchmark(t) { // a benchmark's runs share one set of files
		base = fmt.Sprintf("%s-%d", base, n)
	}
	written.Unlock()

	b, err := json.MarshalIndent(f.json, "", "  ")
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	if err := os.WriteFile(base+".json", append(b, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	for ext, fn := range map[string]func(io.Writer) error{".xml": f.junit, ".txt": f.text} {
		if err := writeFile(base+ext, fn); err != nil {
			return "", fmt.Errorf("report: %w", err)
		}
	}
	return base, nil
}

func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fileName makes a test's name a file name: letters, digits, '.', '-' and
// '_' are kept, anything else becomes '_'; long names are cut.
func fileName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), "._")
	if len(s) > 120 {
		s = s[:120]
	}
	if s == "" {
		s = "arena"
	}
	return s
}
