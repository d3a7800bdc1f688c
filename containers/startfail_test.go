package containers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/containers"
	"github.com/testcontainers/testcontainers-go"
)

// TestStartFailureSaysWhy: an agent that exits at once fails NewRuntime
// with its state and its last log lines, and leaves its log in
// ARENA_REPORT_DIR, before the container is removed.
func TestStartFailureSaysWhy(t *testing.T) {
	containers.RequireDocker(t)
	ctx := context.Background()
	image, err := containers.BuildAgentImage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Setenv(containers.ReportDirEnv, dir)
	req := testcontainers.ContainerRequest{Image: image, Cmd: []string{"-no-such-flag"}}
	rt, err := containers.NewRuntime(ctx, containers.WithProject(testProject), containers.WithStartTimeout(5*time.Second),
		containers.WithAgent("crasher", "worker", req))
	if err == nil {
		rt.Close(ctx)
		t.Fatal("NewRuntime with an agent that exits at once succeeded")
	}
	msg := err.Error()
	for _, want := range []string{"exit code 2", "restarts", "OOM killed false", "no-such-flag", "whole log: " + dir} {
		if !strings.Contains(msg, want) {
			t.Errorf("start error does not say %q:\n%s", want, msg)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*crasher.log"))
	if len(logs) != 1 {
		t.Fatalf("logs in ARENA_REPORT_DIR: %v, want the crasher's", logs)
	}
	if data, _ := os.ReadFile(logs[0]); !strings.Contains(string(data), "no-such-flag") {
		t.Errorf("%s = %q, want agentd's complaint", logs[0], data)
	}
}
