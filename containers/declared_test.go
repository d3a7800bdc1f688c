package containers_test

import (
	"testing"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/containers"
)

// TestDeclaresEveryType: Runtime and Proxied each land or refuse every
// built-in type, and not both: the Declared check of TestConformance,
// without the daemon it needs, so that a built-in type added to arena fails
// here too until each decides. The injector only looks at the runtimes'
// methods: a nil Runtime does.
func TestDeclaresEveryType(t *testing.T) {
	t.Run("Runtime", func(t *testing.T) { arenatest.TestDeclared(t, (*containers.Runtime)(nil)) })
	t.Run("Proxied", func(t *testing.T) { arenatest.TestDeclared(t, &containers.Proxied{}) })
}
