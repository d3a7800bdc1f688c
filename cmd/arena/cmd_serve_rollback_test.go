package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ares-arena/arena/engine"
)

// TestServeSIGTERM: `arena serve`, a real process, gets faults over HTTP
// (one timed, one without a duration) and then SIGTERM: it lifts both
// before it exits, and says so.
func TestServeSIGTERM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0]) // the arena command (child_test.go)
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join([]string{"serve", "--addr", "127.0.0.1:0", "--seed", "3"}, "\x1f"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatalf("arena serve printed nothing: %v", cmd.Wait())
	}
	m := regexp.MustCompile(`serving on (http://\S+) `).FindStringSubmatch(lines.Text())
	if m == nil {
		t.Fatalf("first line %q", lines.Text())
	}
	url := m[1]
	defer http.DefaultClient.CloseIdleConnections()
	for _, rq := range []struct{ path, body string }{
		{"/arena/agent/worker-1/pause", `{"id":"held-pause"}`},
		{"/arena/agent/worker-2/partition", `{"id":"held-partition","metadata":{"duration":"30m"}}`},
	} {
		if code, body := call(t, "POST", url+rq.path, "", rq.body); code != 200 || !strings.Contains(string(body), `"success":true`) {
			t.Fatalf("POST %s = %d %s", rq.path, code, body)
		}
	}
	code, body := call(t, "GET", url+"/arena/faults", "", "")
	var active []engine.ActiveFault
	if err := json.Unmarshal(body, &active); code != 200 || err != nil || len(active) != 2 {
		t.Fatalf("GET /arena/faults = %d %s", code, body)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for lines.Scan() {
		rest = append(rest, lines.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("arena serve after SIGTERM: %v", err)
	}
	want := []string{
		"arena: dashboard: " + url + "/arena/ui/",
		"arena: shutting down",
		"arena: rollback: held-pause pause_agent worker-1: lifted at end",
		"arena: rollback: held-partition network_partition worker-2: lifted at end",
	}
	if strings.Join(rest, "\n") != strings.Join(want, "\n") {
		t.Errorf("after SIGTERM arena serve printed:\n%s\nwant:\n%s", strings.Join(rest, "\n"), strings.Join(want, "\n"))
	}
}
