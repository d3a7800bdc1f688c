package kube_test

import (
	"testing"

	"github.com/ares-arena/arena/arenatest"
)

// TestDocumentsEveryType: the package documentation says, for every
// built-in type, how it lands or why the runtime refuses it (no control plane
// needed).
func TestDocumentsEveryType(t *testing.T) { arenatest.TestRuntimeDoc(t, "doc.go") }
