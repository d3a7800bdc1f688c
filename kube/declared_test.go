package kube_test

import (
	"testing"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/kube"
)

// TestDeclaresEveryType: the runtime lands or refuses every built-in type,
// and not both: the Declared check of TestConformance, without the control
// plane it needs, so that a built-in type added to arena fails here too
// until the runtime decides. The injector only looks at the runtime's
// methods: a nil Runtime does.
func TestDeclaresEveryType(t *testing.T) { arenatest.TestDeclared(t, (*kube.Runtime)(nil)) }
