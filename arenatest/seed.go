package arenatest

import (
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/ares-arena/arena/engine"
)

// SeedFlag and SeedEnv name the two ways to force the seed of every arena
// run of a test binary, to replay a failure or to try another case:
//
//	go test -run '^TestLeaderFailover$' -arena.seed=7
//	ARENA_SEED=7 go test -run '^TestLeaderFailover$'
const (
	SeedFlag = "arena.seed"
	SeedEnv  = "ARENA_SEED"
)

// seedFlag is -arena.seed, registered once, when the package is
// initialised. A binary that already defines the flag keeps its own
// definition, which is read the same way.
var seedFlag = func() *flag.Flag {
	if f := flag.Lookup(SeedFlag); f != nil {
		return f
	}
	flag.Uint64(SeedFlag, 0, "`seed` of every arena run, overriding the seeds in code (also ARENA_SEED)")
	return flag.Lookup(SeedFlag)
}()

// SeedOverride returns the seed forced by the command line (-arena.seed)
// or else the environment (ARENA_SEED), and whether one is. Zero forces
// nothing. A malformed value is an error that names where it came from.
func SeedOverride() (uint64, bool, error) {
	if v := seedFlag.Value.String(); v != "" && v != "0" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("-%s: %q is not a seed (want a non-negative integer)", SeedFlag, v)
		}
		return seed, true, nil
	}
	v, ok := os.LookupEnv(SeedEnv)
	if !ok || v == "" {
		return 0, false, nil
	}
	seed, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %q is not a seed (want a non-negative integer)", SeedEnv, v)
	}
	return seed, seed != 0, nil
}

// seedFor picks a run's seed: the override, else the one in code (WithSeed,
// else the scenario's or the config's), else a drawn one.
func seedFor(o *options, inCode uint64) (uint64, error) {
	seed, ok, err := SeedOverride()
	switch {
	case err != nil:
		return 0, err
	case ok:
		return seed, nil
	case o.seed != 0:
		return o.seed, nil
	case inCode != 0:
		return inCode, nil
	}
	return engine.DrawSeed(), nil
}
