package containers_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ares-arena/arena"
)

// TestDocumentsEveryType: the package documentation says, for every
// built-in type, how it lands or why the runtime refuses it (no Docker
// needed).
func TestDocumentsEveryType(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range arena.FaultSpecs() {
		name := string(s.Type)
		if !strings.Contains(string(doc), name) && !(strings.HasPrefix(name, "kill_") && strings.Contains(string(doc), "kill_*")) {
			t.Errorf("%s: the package documentation (doc.go) does not say how it lands or why it is refused", name)
		}
	}
}
