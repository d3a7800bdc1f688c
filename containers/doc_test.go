package containers_test

import (
	"testing"

	"github.com/ares-arena/arena/arenatest"
)

// TestDocumentsEveryType: the package documentation says, for every
// built-in type, how it lands or why the runtime refuses it (no Docker
// needed).
func TestDocumentsEveryType(t *testing.T) { arenatest.TestRuntimeDoc(t, "doc.go") }
