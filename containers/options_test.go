package containers

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"

	"github.com/ares-arena/arena/fault"
)

func TestOptionsCompare(t *testing.T) {
	if WithPartitionHealing(time.Second) != WithPartitionHealing(time.Second) {
		t.Error("equal options differ")
	}
	if WithKillMode(KillAPI) == WithKillMode(KillSignal) {
		t.Error("different options are equal")
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, tt := range []struct {
		opts []Option
		want string // substring of the error; "" valid
	}{
		{[]Option{WithReferenceAgents(3)}, ""},
		{nil, "no agents"},
		{[]Option{WithReferenceAgents(0)}, "want at least 1 worker"},
		{[]Option{WithReferenceAgents(1), WithProject("")}, "empty project"},
		{[]Option{WithReferenceAgents(1), WithPartitionHealing(-time.Second)}, "negative partition healing"},
		{[]Option{WithReferenceAgents(1), WithProbeTimeout(0)}, "probe timeout must be positive"},
		{[]Option{WithReferenceAgents(1), WithKillMode("gently")}, `unknown kill mode "gently"`},
		{[]Option{WithReferenceAgents(1), WithFaultHook(fault.KillAgent, FaultHook{})}, "WithFaultHook(kill_agent): only the faults that go to the agent's fault-control endpoint take hooks"},
		{[]Option{WithReferenceAgents(1), WithFaultHook(fault.PauseAgent, FaultHook{})}, "WithFaultHook(pause_agent): only"},
		{[]Option{WithReferenceAgents(1), WithFaultHook(fault.ClockJump, FaultHook{})}, ""},
		{[]Option{WithReferenceAgents(1), WithFaultHook(fault.MemoryCorrupt, FaultHook{})}, ""},
		{[]Option{WithReferenceAgents(1), WithFaultHook(fault.RemoveEdge, FaultHook{})}, ""},
	} {
		o := defaultOptions()
		for _, opt := range tt.opts {
			opt.apply(&o)
		}
		err := o.validate()
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("validate(%v) = %v, want %q", tt.opts, err, tt.want)
		}
	}
}

func TestCheckSpecs(t *testing.T) {
	ok := referenceSpecs("img", 2, nil)
	if err := checkSpecs(ok); err != nil {
		t.Fatalf("reference specs: %v", err)
	}
	dup := append(referenceSpecs("img", 1, nil), agentSpec{id: "worker-1", typ: "worker"})
	if err := checkSpecs(dup); err == nil || !strings.Contains(err.Error(), `two agents with ID "worker-1"`) {
		t.Errorf("duplicate IDs: %v", err)
	}
	bad := []agentSpec{{id: "a", typ: "leader", routes: []string{"b"}}}
	if err := checkSpecs(bad); err == nil || !strings.Contains(err.Error(), `unknown agent "b"`) {
		t.Errorf("unknown route: %v", err)
	}
	if err := checkSpecs([]agentSpec{{id: "a b", typ: "x"}}); err == nil {
		t.Error("an ID with a space is accepted")
	}
}

func TestReferenceSpecs(t *testing.T) {
	specs := referenceSpecs("img", 2, map[string]string{"AGENTD_DATA": "", "AGENTD_TASK_INTERVAL": "1s"})
	var got []string
	for _, s := range specs {
		got = append(got, fmt.Sprintf("%s:%s->%v data=%q every %s", s.id, s.typ, s.routes, s.req.Env["AGENTD_DATA"], s.req.Env["AGENTD_TASK_INTERVAL"]))
	}
	want := []string{
		`leader-0:leader->[orchestrator-0] data="" every 1s`,
		`orchestrator-0:orchestrator->[worker-1 worker-2] data="" every 1s`,
		`worker-1:worker->[] data="" every 1s`,
		`worker-2:worker->[] data="" every 1s`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("referenceSpecs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestStatus(t *testing.T) {
	for _, tt := range []struct {
		st   *container.State
		want fault.AgentStatus
	}{
		{nil, fault.StatusStopped},
		{&container.State{Running: true}, fault.StatusRunning},
		{&container.State{Running: true, Paused: true}, fault.StatusPaused},
		{&container.State{Running: true, Restarting: true}, fault.StatusStopped},
		{&container.State{Status: "exited"}, fault.StatusStopped},
	} {
		if got := status(tt.st); got != tt.want {
			t.Errorf("status(%+v) = %s, want %s", tt.st, got, tt.want)
		}
	}
}

// hostProcess must never take a process for a container's unless its
// cgroup names the container: the PID of a remote daemon's container may be
// any process here.
func TestHostProcess(t *testing.T) {
	if hostProcess(os.Getpid(), "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef") {
		t.Error("this test process taken for a container's")
	}
	if hostProcess(1<<30, "x") {
		t.Error("a process that does not exist taken for a container's")
	}
}

// recordingT records what the helpers ask of a test.
type recordingT struct {
	calls []string
}

func (r *recordingT) Helper()        {}
func (r *recordingT) Cleanup(func()) {}
func (r *recordingT) Errorf(f string, args ...any) {
	r.calls = append(r.calls, "Errorf: "+fmt.Sprintf(f, args...))
}
func (r *recordingT) Fatalf(f string, args ...any) {
	r.calls = append(r.calls, "Fatalf: "+fmt.Sprintf(f, args...))
}
func (r *recordingT) Skipf(f string, args ...any) {
	r.calls = append(r.calls, "Skipf: "+fmt.Sprintf(f, args...))
}

func TestNoDockerSkipsUnlessRequired(t *testing.T) {
	err := fmt.Errorf("%w: connection refused", ErrNoDocker)
	for _, tt := range []struct{ env, want string }{
		{"", "Skipf: containers: skipped: no Docker daemon: connection refused (set ARENA_REQUIRE_DOCKER=1 to fail instead)"},
		{"1", "Fatalf: containers: Docker is required (ARENA_REQUIRE_DOCKER=1), but: no Docker daemon: connection refused"},
	} {
		t.Setenv(RequireDockerEnv, tt.env)
		var rt recordingT
		noDocker(&rt, err)
		if len(rt.calls) != 1 || rt.calls[0] != tt.want {
			t.Errorf("%s=%q: calls %q, want %q", RequireDockerEnv, tt.env, rt.calls, tt.want)
		}
	}
	if !errors.Is(err, ErrNoDocker) {
		t.Fatal("ErrNoDocker not wrapped")
	}
}

func TestLinkEnv(t *testing.T) {
	for in, want := range map[string]string{
		"worker-1": "ARENA_LINK_WORKER_1_", "db": "ARENA_LINK_DB_", "Orchestrator.0": "ARENA_LINK_ORCHESTRATOR_0_", "é": "ARENA_LINK___",
	} {
		if got := LinkEnv(in); got != want {
			t.Errorf("LinkEnv(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckLinks(t *testing.T) {
	specs := append(referenceSpecs("img", 2, nil), agentSpec{id: "api", typ: "orchestrator"}, agentSpec{id: "worker_1", typ: "worker"})
	link := func(from, to string) linkSpec { return WithLink(from, to).(linkSpec) }
	for _, tt := range []struct {
		links []linkSpec
		want  string // substring of the error; "" valid
	}{
		{nil, ""},
		{[]linkSpec{link("api", "worker-1"), link("api", "orchestrator-0")}, ""},
		{[]linkSpec{link("orchestrator-0", "worker-1")}, ""}, // the reference link itself
		{[]linkSpec{link("api", "api")}, "an agent links to another agent"},
		{[]linkSpec{link("nobody", "api")}, "WithLink(nobody, api): from: no such agent"},
		{[]linkSpec{link("api", "nobody")}, "WithLink(api, nobody): to: no such agent"},
		{[]linkSpec{link("api", "worker-1"), link("api", "worker_1")}, "ARENA_LINK_WORKER_1_* are those of the link to worker-1"},
		{[]linkSpec{link("orchestrator-0", "worker_1")}, "are those of the link to worker-1"},
	} {
		err := checkLinks(specs, tt.links)
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("checkLinks(%v) = %v, want %q", tt.links, err, tt.want)
		}
	}
	if WithLink("a", "b", LinkPort("5432/tcp")) != WithLink("a", "b", LinkPort("5432/tcp")) {
		t.Error("equal WithLink options differ")
	}
}
