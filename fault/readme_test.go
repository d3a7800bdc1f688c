package fault

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/internal/bound"
)

// faultRow is a built-in's row of the README's fault table.
func faultRow(s Spec) string {
	target := map[TargetRule]string{
		TargetRole: "the " + s.Role, TargetAgent: "agent, `any`, `type:<t>`, `not:<t>`",
		TargetNode: "DAG node, `any`", TargetEdge: "DAG edge (`source_id`), `any`", TargetSystem: "the system",
	}[s.Target]
	meta := "—"
	if names := s.metaNames(); len(names) > 0 {
		meta = "`" + strings.Join(names, "`, `") + "`"
	}
	return "| `" + string(s.Type) + "` | " + target + " | " + meta + " | `" + s.capability.name + "` | `POST " + s.Route + "` |"
}

// TestReadmeFaultTable keeps the README's table of fault types equal to the
// specs.
func TestReadmeFaultTable(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range Specs() {
		if row := faultRow(s); !strings.Contains(string(b), "\n"+row+"\n") {
			t.Errorf("README.md has no row\n%s", row)
		}
	}
}

// metaRow is a metadata key's row of the README's table of ranges.
func metaRow(s Spec, k MetaKey) string {
	def := "—"
	switch v := k.Default.(type) {
	case time.Duration:
		def = bound.FormatDuration(v)
	case string:
		def = "`" + v + "`"
	case nil:
	default:
		def = fmt.Sprint(v)
	}
	return "| `" + string(s.Type) + "` | `" + k.Name + "` | " + string(k.Kind) + " | " + k.RangeText() + " | " + def + " |"
}

// TestReadmeMetadataRanges keeps the README's table of metadata ranges
// equal to the specs: every key of every built-in, with its range.
func TestReadmeMetadataRanges(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range Specs() {
		for _, k := range s.Metadata {
			if row := metaRow(s, k); !strings.Contains(string(b), "\n"+row+"\n") {
				t.Errorf("README.md has no row\n%s", row)
			}
		}
	}
}
