package arenatest

import (
	"testing"

	"github.com/ares-arena/arena/sim"
)

func TestSimulateAdopt(t *testing.T) {
	s := &simulation{world: sim.New(), seed: 5}
	for _, tc := range []struct {
		opts []Option
		want string
	}{
		{[]Option{WithSeed(3)}, "WithSeed: inside Simulate the world and its runs share one seed; give WithSeed to Simulate"},
		{[]Option{Virtual()}, "Virtual(): inside Simulate the clock is simulated (synctest), not arena's virtual clock; leave the option out"},
	} {
		o, err := collect("Run", runOptions, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.adopt(o); err == nil || err.Error() != tc.want {
			t.Errorf("adopt(%v) = %v, want %q", o.given, err, tc.want)
		}
	}
	o, _ := collect("Run", runOptions, nil)
	if err := s.adopt(o); err != nil || o.runtime != s.world || o.seed != 5 {
		t.Errorf("adopt() = %v: runtime %v, seed %d; want the world and 5", err, o.runtime, o.seed)
	}
}
