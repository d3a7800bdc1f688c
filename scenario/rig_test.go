package scenario_test

import (
	"testing"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
)

// rig is a service over a fresh fake cluster seeded with seed, on a
// virtual clock of its own: a fakes.Strategy of opts builds it.
type rig struct{ svc *engine.Service }

func newRig(t *testing.T, seed uint64, opts ...fakes.Option) *rig {
	t.Helper()
	svc, err := fakes.Strategy{Name: "test", Options: opts}.NewService(seed)
	if err != nil {
		t.Fatal(err)
	}
	return &rig{svc: svc}
}
