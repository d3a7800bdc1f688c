package agentcheck_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/containers/agentcheck"
	"github.com/ares-arena/arena/fault"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func state(accepted []string, handed map[string][]string) agentapi.State {
	return agentapi.State{Ledger: agentapi.Ledger{Accepted: accepted, Handed: handed}}
}

func TestTasks(t *testing.T) {
	ctx := context.Background()
	sts := map[string]agentapi.State{
		"leader-0":       state([]string{"t1", "t2"}, map[string][]string{"orchestrator-0": {"t1", "t2"}}),
		"orchestrator-0": state([]string{"t1"}, map[string][]string{"worker-9": {"t1"}}), // worker-9 out of reach
	}
	err := agentcheck.Tasks(ctx, sts, nil)
	if err == nil || !strings.Contains(err.Error(), "1 tasks lost") || !strings.Contains(err.Error(), "t2 (leader-0->orchestrator-0)") {
		t.Errorf("Tasks = %v, want t2 lost between leader-0 and orchestrator-0", err)
	}
	reread := func(ctx context.Context, id string) (agentapi.State, error) {
		return state([]string{"t1", "t2"}, nil), nil // read again, after its sender: it has t2
	}
	if err := agentcheck.Tasks(ctx, sts, reread); err != nil {
		t.Errorf("Tasks with a receiver that has the task on a second read = %v, want nil", err)
	}
}

func TestMemory(t *testing.T) {
	ok := agentapi.Memory{OK: true, CheckpointOK: true, CheckpointAt: time.Unix(1, 0)}
	sts := map[string]agentapi.State{"a": {Memory: ok}, "b": {Memory: agentapi.Memory{OK: true}}}
	if err := agentcheck.Memory(sts); err != nil {
		t.Errorf("sound memories: %v", err)
	}
	sts["c"] = agentapi.State{Memory: agentapi.Memory{OK: false}}
	sts["d"] = agentapi.State{Memory: agentapi.Memory{OK: true, CheckpointAt: time.Unix(1, 0)}}
	err := agentcheck.Memory(sts)
	if err == nil || err.Error() != "c: memory does not match its checksum; d: checkpoint unreadable or corrupt" {
		t.Errorf("Memory = %v", err)
	}
}

// TestStates: the agents out of reach by design and those without GET
// /state are left out, other errors kept; with nothing read the checks are
// not applicable, and say why.
func TestStates(t *testing.T) {
	read := func(_ context.Context, id string) (agentapi.State, error) {
		switch id {
		case "paused":
			return agentapi.State{}, fmt.Errorf("paused: %w", agentcheck.ErrSkip)
		case "noapi":
			return agentapi.State{}, fmt.Errorf("noapi: %w", fault.ErrUnsupported)
		case "broken":
			return agentapi.State{}, errors.New("broken: state unreadable")
		}
		return agentapi.State{ID: id}, nil
	}
	sts, err := agentcheck.States(context.Background(), []string{"a", "paused", "noapi", "broken", "b"}, read)
	if len(sts) != 2 || sts["a"].ID != "a" || sts["b"].ID != "b" || err == nil || err.Error() != "broken: state unreadable" {
		t.Errorf("States = %v, %v; want a and b, and the broken agent's error", sts, err)
	}
	_, err = agentcheck.States(context.Background(), []string{"paused", "noapi"}, read)
	if want := "not applicable: no agent's state was read (1 of 2 agents do not serve GET /state, 1 out of reach)"; !errors.Is(err, fault.ErrNotApplicable) || err.Error() != want {
		t.Errorf("States of agents that cannot answer = %v, want %q", err, want)
	}
}
