package scenarios_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.uber.org/goleak"
	"gopkg.in/yaml.v3"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/schemagen"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/scenarios"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var library = []string{
	"cascading-failure", "dag-surgery", "everything-at-once", "flaky-network", "leader-failover", "llm-brownout", "mcp-flap",
	"memory-corruption", "network-split", "orchestrator-loss", "rolling-kills", "slow-network", "slow-tools",
}

func TestNames(t *testing.T) {
	if diff := cmp.Diff(library, scenarios.Names()); diff != "" {
		t.Errorf("Names() (-want +got):\n%s", diff)
	}
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.yaml")
	data, _ := scenarios.FS.ReadFile("leader-failover.yaml")
	if err := os.WriteFile(file, bytes.Replace(data, []byte("name: leader-failover"), []byte("name: mine"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ arg, name, err string }{
		{arg: "leader-failover", name: "leader-failover"},
		{arg: file, name: "mine"},
		{arg: filepath.Join(dir, "missing.yaml"), err: `"` + filepath.Join(dir, "missing.yaml") + `" is neither a built-in scenario (` + strings.Join(library, ", ") + `) nor a file`},
	} {
		sc, err := scenarios.Resolve(c.arg)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("Resolve(%q) = %v, want %s", c.arg, err, c.err)
		case c.err == "" && (err != nil || sc.Name != c.name):
			t.Errorf("Resolve(%q) = %v, %v, want the scenario %q", c.arg, sc, err, c.name)
		}
	}
}

const modeline = "# yaml-language-server: $schema=./scenario.schema.json\n"

func TestEveryBuiltinIsComplete(t *testing.T) {
	for _, name := range scenarios.Names() {
		sc, err := scenarios.Load(name)
		if err != nil {
			t.Errorf("Load(%q) = %v", name, err)
			continue
		}
		data, _ := scenarios.FS.ReadFile(name + ".yaml")
		switch {
		case !bytes.HasPrefix(data, []byte(modeline)):
			t.Errorf("%s.yaml does not start with the modeline %q", name, modeline)
		case sc.Name != name:
			t.Errorf("%s.yaml is named %q", name, sc.Name)
		case sc.Description == "" || len(sc.Tags) == 0:
			t.Errorf("%s: no description or tags", name)
		case sc.Expect.MinGrade == engine.GradeNone || sc.Expect.MaxMTTR == nil || !sc.Expect.AllRecovered || !sc.Expect.Consistent:
			t.Errorf("%s: gate %+v lacks a criterion", name, sc.Expect)
		case sc.Config.Cooldown.D() < 15*time.Second:
			t.Errorf("%s: cooldown %s is too short to see the last fault recover", name, sc.Config.Cooldown)
		case sc.Source() != name+".yaml":
			t.Errorf("%s: Source() = %q", name, sc.Source())
		}
	}
	if _, err := scenarios.Load("leader-failure"); !errors.Is(err, scenarios.ErrUnknown) ||
		!strings.HasPrefix(err.Error(), `unknown built-in scenario "leader-failure" (built in: cascading-failure, `) {
		t.Errorf("Load(unknown) = %v, want ErrUnknown listing the names", err)
	}
}

// system is the default fake cluster on a virtual clock, seeded like the
// CLI seeds it: the workload and the selectors from one seed.
func system(seed uint64, opts ...fakes.Option) *engine.Service {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(append([]fakes.Option{fakes.WithClock(clk), fakes.WithSeed(seed)}, opts...)...)
	return engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(), nil,
		engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...))
}

// Every built-in scenario passes its own gate on the default fake cluster,
// for any seed, and fails it when the cluster's self-healing is off.
func TestBuiltinGates(t *testing.T) {
	seeds := []uint64{1, 2, 3, 7, 42, 1234, 99991, 1 << 40}
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			for _, seed := range seeds {
				for _, heal := range []bool{true, false} {
					sc, err := scenarios.Load(name)
					if err != nil {
						t.Fatal(err)
					}
					sc.Config.Seed = seed
					var opts []fakes.Option
					if !heal {
						opts = append(opts, fakes.WithoutHealing())
					}
					rep, err := scenario.Run(context.Background(), system(seed, opts...), sc)
					if err != nil {
						t.Fatal(err)
					}
					if heal && !rep.OK() {
						t.Errorf("seed %d: fails its gate on the default fakes:\n%s", seed, rep)
					}
					if !heal && rep.Gate.Verdict != scenario.GateFailed {
						t.Errorf("seed %d: passes its gate with self-healing off:\n%s", seed, rep)
					}
					if rep.Outcome != scenario.OutcomeCompleted {
						t.Errorf("seed %d, healing %v: outcome %s", seed, heal, rep.Outcome)
					}
				}
			}
		})
	}
}

func TestShippedSchemaIsGenerated(t *testing.T) {
	want, err := schemagen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(scenarios.Schema())); diff != "" {
		t.Errorf("scenario.schema.json is stale; run `make schema` (-generated +shipped):\n%s", diff)
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(scenarios.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemagen.ID, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(schemagen.ID)
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return sch
}

// instance turns YAML into the JSON value a validator reads.
func instance(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func TestBuiltinsValidateAgainstTheSchema(t *testing.T) {
	sch := compileSchema(t)
	for _, name := range scenarios.Names() {
		data, _ := scenarios.FS.ReadFile(name + ".yaml")
		if err := sch.Validate(instance(t, data)); err != nil {
			t.Errorf("%s.yaml does not validate against the schema: %v", name, err)
		}
	}
}

// The schema catches what an editor should flag; each of these files is
// also refused by the loader.
func TestSchemaRejectsBadFiles(t *testing.T) {
	sch := compileSchema(t)
	bad := map[string]string{
		"typo'd key":          "name: x\nactions:\n  - dealy: 1s\n    action: {type: kill_leader}\n",
		"unknown type":        "name: x\nactions:\n  - action: {type: kill_lader}\n",
		"missing target":      "name: x\nactions:\n  - action: {type: kill_agent}\n",
		"target not taken":    "name: x\nactions:\n  - action: {type: kill_leader, target_id: leader-0}\n",
		"missing source":      "name: x\nactions:\n  - action: {type: remove_edge, target_id: b}\n",
		"metadata of another": "name: x\nactions:\n  - action: {type: tool_timeout, target_id: w, metadata: {delay: 1s}}\n",
		"metadata not taken":  "name: x\nactions:\n  - action: {type: kill_agent, target_id: w, metadata: {duration: 1s}}\n",
		"bad error type":      "name: x\nactions:\n  - action: {type: llm_failure, target_id: w, metadata: {error_type: teapot}}\n",
		"bad duration":        "name: x\nactions:\n  - delay: soon\n    action: {type: kill_leader}\n",
		"negative duration":   "name: x\nactions:\n  - delay: -1\n    action: {type: kill_leader}\n",
		"bad grade":           "name: x\nactions:\n  - action: {type: kill_leader}\nexpect: {min_grade: E}\n",
		"score above 100":     "name: x\nactions:\n  - action: {type: kill_leader}\nexpect: {min_score: 101}\n",
		"missing name":        "actions:\n  - action: {type: kill_leader}\n",
		"no actions":          "name: x\nactions: []\n",
		"action id":           "name: x\nactions:\n  - action: {id: a1, type: kill_leader}\n",
	}
	for name, doc := range bad {
		if err := sch.Validate(instance(t, []byte(doc))); err == nil {
			t.Errorf("%s: the schema accepts\n%s", name, doc)
		}
		if _, err := scenario.Load([]byte(doc), name); err == nil {
			t.Errorf("%s: the loader accepts\n%s", name, doc)
		}
	}
	good := "name: x\nconfig: {warmup: 1.5, cooldown: 1m30s, seed: 7}\nactions:\n" +
		"  - action: {type: slow_agent, target_id: type:worker, metadata: {delay: 2s, duration: \"3\"}}\n" +
		"  - action: {type: remove_edge, source_id: a, target_id: b}\nexpect: {min_grade: a+, max_mttr: 500ms}\n"
	if err := sch.Validate(instance(t, []byte(good))); err != nil {
		t.Errorf("the schema refuses a good file: %v", err)
	}
	if _, err := scenario.Load([]byte(good), "good"); err != nil {
		t.Errorf("the loader refuses a good file: %v", err)
	}
}

func ExampleLoad() {
	sc, err := scenarios.Load("leader-failover")
	if err != nil {
		fmt.Println(err)
		return
	}
	sc.Config.Seed = 7 // the CLI seeds the fake workload and the selectors alike
	rep, err := scenario.Run(context.Background(), system(7), sc)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s, grade %s, MTTR %s\n", rep.Scenario, rep.Gate.Verdict, rep.Report.Score.Grade, rep.Report.MTTR)
	// Output:
	// leader-failover: passed, grade A+, MTTR 1.3s
}

// The README shows leader-failover.yaml verbatim.
func TestReadmeShowsLeaderFailover(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := scenarios.FS.ReadFile("leader-failover.yaml")
	if !bytes.Contains(readme, append(append([]byte("```yaml\n"), data...), "```"...)) {
		t.Error("README's scenario example differs from scenarios/leader-failover.yaml")
	}
}

// TestBuiltinsTargetRolesAndSelectors (issue 35, item 1): no built-in names
// one system's agents or DAG nodes: every target is a role, a selector or
// any, so that each runs on any system whose runtime lands its types.
func TestBuiltinsTargetRolesAndSelectors(t *testing.T) {
	for _, name := range scenarios.Names() {
		sc, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range sc.Actions {
			for field, id := range map[string]string{"target_id": st.Action.TargetID, "source_id": st.Action.SourceID} {
				if id != "" && !fault.IsSelector(id) {
					t.Errorf("%s: actions[%d] (%s).action.%s names %q, one system's name: use a role or a selector", name, i, st.Label, field, id)
				}
			}
		}
	}
}

// TestBuiltinPartitionsCarryDurations (issue 35, item 2): a partition in a
// built-in says when arena lifts it, so a system whose partitions do not
// heal by themselves recovers.
func TestBuiltinPartitionsCarryDurations(t *testing.T) {
	for _, name := range scenarios.Names() {
		sc, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range sc.Actions {
			if st.Action.Type == fault.NetworkPartition && st.Action.Metadata[fault.MetaDuration] == nil {
				t.Errorf("%s: actions[%d] (%s): a partition without a duration", name, i, st.Label)
			}
		}
	}
}

// TestBuiltinsWhereArenaMustLiftPartitions (issue 35, item 2): on a cluster
// whose partitions last until lifted, every built-in with a partition
// passes its gate: every fault recovered. network-split used to leave two
// partitions for the system to heal, and failed with grade F.
func TestBuiltinsWhereArenaMustLiftPartitions(t *testing.T) {
	for _, name := range scenarios.Names() {
		sc, err := scenarios.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(sc.Actions, func(st scenario.Step) bool { return st.Action.Type == fault.NetworkPartition }) {
			continue
		}
		for _, seed := range []uint64{1, 7, 42} {
			sc.Config.Seed = seed
			rep, err := scenario.Run(context.Background(), system(seed, fakes.WithoutPartitionHealing()), sc)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() {
				t.Errorf("%s, seed %d: fails its gate where arena must lift partitions:\n%s", name, seed, rep)
			}
		}
	}
}
