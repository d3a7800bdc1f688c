package wasmhost

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want Args
		err  string
	}{
		{name: "go test's command line", args: []string{"-test.paniconexit0", "-test.timeout=10m0s", "-test.run=^TestA$", "-test.v=true", "-test.testlogfile=/tmp/x/testlog.txt", "-raftsim.repro=3"},
			want: Args{Run: "^TestA$", Timeout: 10 * time.Minute, Keep: []string{"-test.v=true", "-raftsim.repro=3"}}},
		{name: "seed and build, taken out", args: []string{"-arena.seed", "7", "--arena.build=abc", "-test.short"},
			want: Args{Seed: 7, Override: true, Build: "abc", Keep: []string{"-test.short"}}},
		{name: "the host's seed only", args: []string{"-arena.wasmseed=9"}, want: Args{Seed: 9}},
		{name: "the seed wins over the host's", args: []string{"-arena.seed=3", "-arena.wasmseed=9"}, want: Args{Seed: 3, Override: true}},
		{name: "a value in the next argument, kept joined", args: []string{"-arena.seeds", "100", "-test.run", "A/B"},
			want: Args{Run: "A/B", Keep: []string{"-arena.seeds=100"}}},
		{name: "list, bench and fuzz run as given", args: []string{"-test.list=."}, want: Args{Single: true, Keep: []string{"-test.list=."}}},
		{name: "test2json is verbose", args: []string{"-test.v=test2json"}, want: Args{Keep: []string{"-test.v=test2json"}}},
		{name: "positional arguments end the flags", args: []string{"-test.short", "pos", "-test.run=X"}, want: Args{Keep: []string{"-test.short", "pos", "-test.run=X"}}},
		{name: "a bad timeout", args: []string{"-test.timeout=soon"}, err: `-test.timeout: "soon" is not a duration`},
		{name: "a bad seed", args: []string{"-arena.seed=-1"}, err: `-arena.seed: "-1" is not a seed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseArgs(tc.args)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseArgs(%q) = %v, want error %q", tc.args, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseArgs(%q) (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

func TestSeedFromEnv(t *testing.T) {
	a := Args{}
	if err := a.SeedFromEnv("9"); err != nil || a.Seed != 9 || !a.Override {
		t.Errorf("SeedFromEnv(9) = %v, seed %d", err, a.Seed)
	}
	a = Args{Seed: 3, Override: true}
	if err := a.SeedFromEnv("9"); err != nil || a.Seed != 3 {
		t.Errorf("the flag's seed lost to the environment's: %d, %v", a.Seed, err)
	}
	if err := (&Args{}).SeedFromEnv("x"); err == nil || !strings.Contains(err.Error(), `ARENA_SEED: "x"`) {
		t.Errorf("SeedFromEnv(x) = %v, want an error naming ARENA_SEED", err)
	}
}

func TestSplitRun(t *testing.T) {
	for run, want := range map[string][2]string{
		"":                    {"", ""},
		"^TestA$":             {"^TestA$", ""},
		"^TestA$/^seed=7$":    {"^TestA$", "/^seed=7$"},
		"Test[/]x/sub":        {"Test[/]x", "/sub"},
		"(A|B/C)/D":           {"(A|B/C)", "/D"},
		"^TestA$/^a$/^b$/^c$": {"^TestA$", "/^a$/^b$/^c$"},
	} {
		top, rest := splitRun(run)
		if top != want[0] || rest != want[1] {
			t.Errorf("splitRun(%q) = %q, %q, want %q, %q", run, top, rest, want[0], want[1])
		}
	}
}

func TestTrimVerdict(t *testing.T) {
	for out, want := range map[string][2]string{
		"=== RUN A\nPASS\n":         {"=== RUN A\n", "PASS"},
		"x\nFAIL\n":                 {"x\n", "FAIL"},
		"x\n\x16PASS\n":             {"x\n", "PASS"},
		"panic: boom\n":             {"panic: boom\n", ""},
		"PASS\n":                    {"", "PASS"},
		"--- PASS: A (0.00s)\nok\n": {"--- PASS: A (0.00s)\nok\n", ""},
	} {
		got, verdict := trimVerdict([]byte(out))
		if string(got) != want[0] || verdict != want[1] {
			t.Errorf("trimVerdict(%q) = %q, %q, want %q, %q", out, got, verdict, want[0], want[1])
		}
	}
}

func TestProgramEnv(t *testing.T) {
	got := programEnv([]string{"HOME=/root", "ARENA_Z=1", "ARENA_SEED=7", "GOGC=50", "ARENA_A=x=y", "ARENA_WASM_HOST=evil", "junk"})
	want := [][2]string{{"ARENA_A", "x=y"}, {"ARENA_Z", "1"}, {"GOGC", "50"}}
	if !slices.Equal(got, want) {
		t.Errorf("programEnv = %q, want %q", got, want)
	}
}

// TestClocks: both clocks move by tick on a reading and by the whole
// sleep on a sleep, from Epoch.
func TestClocks(t *testing.T) {
	var c clocks
	if n := c.nanotime(); n != int64(tick) {
		t.Errorf("first nanotime %d, want %d", n, tick)
	}
	c.nanosleep(int64(time.Hour))
	c.nanosleep(-5)
	sec, nsec := c.walltime()
	if got, want := time.Unix(sec, int64(nsec)).UTC(), Epoch.Add(time.Hour+2*tick); !got.Equal(want) {
		t.Errorf("walltime %s, want %s", got, want)
	}
}

// FuzzParseArgs: any command line parses or is refused with the flag
// named; what the host keeps never holds a flag the host takes, and
// parsing it again keeps it whole.
func FuzzParseArgs(f *testing.F) {
	f.Add("-test.paniconexit0\x00-test.timeout=10m0s\x00-test.run=^A$\x00-arena.seed\x007\x00-x")
	f.Add("-arena.build=abc\x00--test.v\x00pos\x00-arena.seed=1")
	f.Add("-test.list\x00.")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		a, err := ParseArgs(args)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "-test.timeout") && !strings.HasPrefix(err.Error(), "-arena.seed") {
				t.Fatalf("ParseArgs(%q): error %q names no flag", args, err)
			}
			return
		}
		flags := true
		for _, k := range a.Keep {
			name, _, _ := flagOf(k)
			if name == "" {
				flags = false
			}
			if flags && hostFlags[name] {
				t.Fatalf("ParseArgs(%q) kept the host's flag %q", args, k)
			}
		}
		again, err := ParseArgs(a.Keep)
		if err != nil || !slices.Equal(again.Keep, a.Keep) {
			t.Fatalf("ParseArgs(%q).Keep = %q parses again to %q, %v", args, a.Keep, again.Keep, err)
		}
	})
}
