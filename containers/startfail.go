package containers

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/ares-arena/arena/fault"
)

// startLogLines is how many of a failed container's last log lines a start
// error carries.
const startLogLines = 50

// ReportDirEnv names the directory where a container that failed to start
// leaves its whole log, as arenatest leaves its reports (ARENA_REPORT_DIR).
const ReportDirEnv = fault.ReportDirEnv

// startDiagnosis describes a container that failed to start, before it is
// removed and its logs with it: its state (exit code, restarts, OOM) and
// its last log lines. With ARENA_REPORT_DIR set, the whole log is written
// there as <container name>.log.
func startDiagnosis(ctx context.Context, c testcontainers.Container, name string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var b strings.Builder
	ins, err := c.Inspect(ctx)
	// A container in a restart loop reads "running, exit code 0" in the
	// moments after each restart: watch it a little for a state that
	// carries the exit code of the run that failed.
	for wait := time.Now().Add(3 * time.Second); err == nil && ins.State != nil && ins.State.Status == "running" &&
		ins.RestartCount > 0 && time.Now().Before(wait) && ctx.Err() == nil; {
		time.Sleep(50 * time.Millisecond)
		ins, err = c.Inspect(ctx)
	}
	if err == nil && ins.State != nil {
		st := ins.State
		fmt.Fprintf(&b, "\ncontainer %s: %s, exit code %d, %d restarts, OOM killed %v", name, st.Status, st.ExitCode, ins.RestartCount, st.OOMKilled)
		if st.Error != "" {
			fmt.Fprintf(&b, ", error %q", st.Error)
		}
	}
	rc, err := c.Logs(ctx)
	if err != nil {
		return b.String()
	}
	defer rc.Close()
	data, _ := io.ReadAll(io.LimitReader(rc, 16<<20))
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if dir := os.Getenv(ReportDirEnv); dir != "" {
		path := filepath.Join(dir, name+".log")
		if os.MkdirAll(dir, 0o755) == nil && os.WriteFile(path, data, 0o644) == nil {
			fmt.Fprintf(&b, "\nwhole log: %s", path)
		}
	}
	if n := len(lines); n > startLogLines {
		fmt.Fprintf(&b, "\nlast %d of %d log lines:", startLogLines, n)
		lines = lines[n-startLogLines:]
	} else {
		fmt.Fprintf(&b, "\nlog (%d lines):", n)
	}
	for _, l := range lines {
		b.WriteString("\n  " + l)
	}
	return b.String()
}
