package scenario

import (
	"bytes"
	"fmt"
	"io"
	"maps"

	"gopkg.in/yaml.v3"
)

// WriteYAML writes sc as a scenario file that Load reads back to
// the same scenario: the keys in documentation order, durations as Go
// duration strings, fields at their zero value left out. Action IDs and
// creation times are the engine's, not the file's: they are not written.
func (sc *Scenario) WriteYAML(w io.Writer) error {
	out := *sc
	out.Actions = make([]Step, len(sc.Actions))
	for i, st := range sc.Actions {
		st.Action.ID = ""
		st.Action.Metadata = maps.Clone(st.Action.Metadata)
		out.Actions[i] = st
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&out); err != nil {
		return fmt.Errorf("scenario %q: %w", sc.Name, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("scenario %q: %w", sc.Name, err)
	}
	_, err := w.Write(b.Bytes())
	return err
}
