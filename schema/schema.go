// Package schema prints the JSON Schema of scenario files for one service:
// the built-in fault types and those registered on its injector with
// fault.WithFault, each with its targets and metadata. It is a package of
// its own so that the JSON Schema generator is compiled only by those who
// ask for it; the schema of the built-ins alone is shipped with the
// scenarios package (scenarios.Schema).
//
//	b, err := schema.For(svc.Injector())
//	os.WriteFile("scenario.schema.json", b, 0o644)
package schema

import (
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/schemagen"
)

// For returns the JSON Schema (indented, with a final newline) of scenario
// files for the injector's fault types. For an injector with no types of
// its own it equals scenarios.Schema().
func For(in *fault.Injector) ([]byte, error) {
	return schemagen.GenerateFor(in.FaultTypes())
}
