package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// reportMiB is the size of the large report of TestShrinkReportPeakMemory;
// ARENA_SHRINK_REPORT_MB sets another (issue 34 measured 250).
func reportMiB(t *testing.T) int64 {
	s := os.Getenv("ARENA_SHRINK_REPORT_MB")
	if s == "" {
		return 64
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || n > 255 {
		t.Fatalf("ARENA_SHRINK_REPORT_MB=%q: want 1 to 255", s)
	}
	return n
}

// TestShrinkReportPeakMemory: shrink streams a survival report, so a large
// one costs about nothing beyond a small one, whether its bulk is in the
// lists shrink does not read (the report's faults) or in its actions (more
// landed than a scenario may have: refused as they are read). It read the
// report whole and decoded it twice: a 250 MB one took 2.18 GB.
//
//	ARENA_SHRINK_REPORT_MB=250 go test -run '^TestShrinkReportPeakMemory$' -v ./cmd/arena
func TestShrinkReportPeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes large files, starts processes")
	}
	size := reportMiB(t) << 20
	dir := t.TempDir()
	rep := survivalReport(t)
	small := filepath.Join(dir, "small.json")
	writeInflated(t, small, rep, "", 0)
	// --seed 6 is not the report's: shrink stops once it has read the report.
	args := func(path string) []string { return []string{"shrink", path, "--consistent", "--seed", "6"} }
	_, base := childRSS(t, args(small)...)
	for _, list := range []string{"report.faults", "events"} {
		t.Run(list, func(t *testing.T) {
			big := filepath.Join(dir, list+".json")
			writeInflated(t, big, rep, list, size)
			stderr, peak := childRSS(t, args(big)...)
			t.Logf("peak RSS %d MiB reading a %d MiB report (its %s repeated), %d MiB reading a small one: %s",
				peak>>20, size>>20, list, base>>20, strings.TrimSpace(stderr))
			if peak-base > size/2 {
				t.Errorf("reading a %d MiB report took %d MiB more than a small one", size>>20, (peak-base)>>20)
			}
		})
	}
}

// writeInflated writes rep to path with its list at the dotted path list
// repeated until the file is about size bytes; with no list, as it is.
func writeInflated(t *testing.T, path string, rep map[string]any, list string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	var items []any
	const hole = "\x00hole"
	if list != "" {
		parent, key := rep, list
		if p, k, ok := strings.Cut(list, "."); ok {
			parent, key = rep[p].(map[string]any), k
		}
		items = parent[key].([]any)
		parent[key] = []any{hole}
		defer func() { parent[key] = items }()
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	head, tail, ok := bytes.Cut(b, []byte(`"\u0000hole"`))
	w.Write(head)
	if ok {
		var chunk []byte
		for i, it := range items {
			if i > 0 {
				chunk = append(chunk, ',')
			}
			ib, _ := json.Marshal(it)
			chunk = append(chunk, ib...)
		}
		for n := int64(len(b)); n < size; n += int64(len(chunk)) + 1 {
			if n > int64(len(b)) {
				w.WriteByte(',')
			}
			w.Write(chunk)
		}
		w.Write(tail)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// childRSS runs the arena command args in a process of its own and returns
// its standard error and peak resident set size in bytes.
func childRSS(t *testing.T, args ...string) (string, int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, "\x1f"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ready, readyW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer ready.Close()
	cmd.ExtraFiles = []*os.File{readyW} // childReadyFD, which the child closes
	err = cmd.Run()
	readyW.Close()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatal(err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage on this platform")
	}
	return stderr.String(), ru.Maxrss << 10 // kilobytes on Linux
}
