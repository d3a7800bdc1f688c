package wasmhost

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Args is a test binary's command line as go test gives it, split into
// what the host acts on and what the program keeps.
type Args struct {
	Run      string        // -test.run, "" for every test
	Timeout  time.Duration // -test.timeout: the host's, on its own clock (0: none)
	Seed     uint64        // -arena.seed, ARENA_SEED or -arena.wasmseed (0: none)
	Override bool          // Seed is every run's seed (-arena.seed, ARENA_SEED), not only the host's
	Build    string        // -arena.build: the build a failure was seen under
	Single   bool          // -test.list, -test.bench or -test.fuzz: one instance, as given
	Keep     []string      // every other argument, in order, as given
}

// hostFlags are the flags the host takes out of the program's command
// line: it enforces the timeout on its own clock, moves the seed into the
// environment, and the test log names a file outside what the program
// may open.
var hostFlags = map[string]bool{
	"test.run": true, "test.timeout": true, "test.testlogfile": true,
	"test.paniconexit0": true, "arena.seed": true, "arena.build": true, "arena.wasmseed": true,
}

// valued are the flags, of those the host reads, that take a value.
var valued = map[string]bool{
	"test.run": true, "test.timeout": true, "test.testlogfile": true, "arena.seed": true, "arena.wasmseed": true,
	"arena.build": true, "arena.seeds": true, "arena.shard": true, "test.list": true, "test.bench": true, "test.fuzz": true, "test.v": false,
}

// ParseArgs splits args (without the program name).
func ParseArgs(args []string) (Args, error) {
	var a Args
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, value, hasValue := flagOf(arg)
		if name == "" {
			a.Keep = append(a.Keep, args[i:]...)
			break
		}
		if valued[name] && !hasValue && i+1 < len(args) {
			i++
			value, hasValue = args[i], true
			arg = "-" + name + "=" + value
		}
		switch name {
		case "test.run":
			a.Run = value
		case "test.timeout":
			d, err := time.ParseDuration(value)
			if err != nil || d < 0 {
				return a, fmt.Errorf("-test.timeout: %q is not a duration", value)
			}
			a.Timeout = d
		case "arena.seed":
			s, err := strconv.ParseUint(value, 10, 64)
			if err != nil {
				return a, fmt.Errorf("-arena.seed: %q is not a seed (want a non-negative integer)", value)
			}
			a.Seed, a.Override = s, true
		case "arena.wasmseed":
			// The seed of an instance that asked for its simulation's
			// seed: the host's random source's, not every run's.
			s, err := strconv.ParseUint(value, 10, 64)
			if err != nil {
				return a, fmt.Errorf("-arena.wasmseed: %q is not a seed (want a non-negative integer)", value)
			}
			if !a.Override {
				a.Seed = s
			}
		case "arena.build":
			a.Build = value
		case "test.list", "test.bench", "test.fuzz":
			if value != "" {
				a.Single = true
			}
		}
		if !hostFlags[name] {
			a.Keep = append(a.Keep, arg)
		}
	}
	return a, nil
}

// flagOf splits "-name=value", "--name" and the like; name is "" for an
// argument that is no flag (or "--", which ends them).
func flagOf(arg string) (name, value string, hasValue bool) {
	if len(arg) < 2 || arg[0] != '-' || arg == "--" {
		return "", "", false
	}
	s := strings.TrimPrefix(arg[1:], "-")
	name, value, hasValue = strings.Cut(s, "=")
	return name, value, hasValue
}

// SeedFromEnv fills Seed from ARENA_SEED when no flag gave one.
func (a *Args) SeedFromEnv(v string) error {
	if a.Override || v == "" {
		return nil
	}
	s, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return fmt.Errorf("ARENA_SEED: %q is not a seed (want a non-negative integer)", v)
	}
	a.Seed, a.Override = s, true
	return nil
}

// argv is the program's command line for one instance: the program name,
// the kept flags, and the instance's -test.run. Two instances with equal
// arguments get equal command lines, whatever go test added around them.
func argv(keep []string, run string) []string {
	out := []string{"test.wasm", "-test.paniconexit0"}
	if run != "" {
		out = append(out, "-test.run="+run)
	}
	return append(out, keep...)
}
