// Package scenarios is arena's built-in library of chaos scenarios, embedded
// in the binary, and the JSON Schema of scenario files.
//
// Each scenario is a YAML file of this directory (FS), named after its
// `name`: leader-failover, orchestrator-loss, rolling-kills, network-split,
// slow-network, flaky-network, slow-tools, llm-brownout, mcp-flap,
// memory-corruption, dag-surgery, cascading-failure and everything-at-once. Each has a description, tags and
// a gate (`expect`) that the default fake cluster (fakes.NewCluster with
// default options) passes for any seed, and that the same cluster with its
// self-healing switched off (fakes.WithoutHealing) fails.
//
// Load returns a scenario by name; Resolve takes "a built-in name or a file
// path", as the arena CLI and arenatest.Run do.
//
// Every file starts with the yaml-language-server modeline pointing at
// scenario.schema.json (Schema), so editors check and complete it. The schema
// is generated from arena's Go types by `make schema`; a test keeps the
// shipped file equal to the generated one.
package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// FS holds the built-in scenario files (<name>.yaml) and scenario.schema.json.
//
//go:embed *.yaml scenario.schema.json
var FS embed.FS

// SchemaFile is the name of the JSON Schema in FS.
const SchemaFile = "scenario.schema.json"

// ErrUnknown: no built-in scenario has that name.
var ErrUnknown = errors.New("unknown built-in scenario")

// Names returns the names of the built-in scenarios, sorted.
func Names() []string {
	entries, err := fs.Glob(FS, "*.yaml")
	if err != nil {
		panic("scenarios: " + err.Error()) // the pattern is constant
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e, ".yaml"))
	}
	slices.Sort(names)
	return names
}

// Load returns the built-in scenario with this name, freshly decoded (the
// caller may change it).
func Load(name string) (*scenario.Scenario, error) {
	if !slices.Contains(Names(), name) {
		return nil, fmt.Errorf("%w %q (built in: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	data, err := FS.ReadFile(name + ".yaml")
	if err != nil {
		return nil, err
	}
	return scenario.Load(data, name+".yaml")
}

// Resolve returns the built-in scenario named arg or, when no built-in has
// that name, the scenario in the file at path arg. A path that does not
// exist is an error naming the built-ins. A file may use the fault types in
// extra (registered with fault.WithFault) beside the built-ins.
func Resolve(arg string, extra ...fault.Spec) (*scenario.Scenario, error) {
	if slices.Contains(Names(), arg) {
		return Load(arg)
	}
	sc, err := scenario.LoadFile(arg, extra...)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%q is neither a built-in scenario (%s) nor a file", arg, strings.Join(Names(), ", "))
	}
	return sc, err
}

// Schema returns the JSON Schema of scenario files (scenario.schema.json).
func Schema() []byte {
	b, err := FS.ReadFile(SchemaFile)
	if err != nil {
		panic("scenarios: " + err.Error()) // embedded at build time
	}
	return b
}
