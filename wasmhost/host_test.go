package wasmhost

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// execGuest runs the guest's command line on h and returns its output,
// what it said on stderr, and its exit code.
func execGuest(t *testing.T, h *Host, args ...string) (string, string, int) {
	t.Helper()
	a, err := ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := h.Exec(context.Background(), a, &out, &errOut)
	return out.String(), errOut.String(), code
}

// inputs is TestInputs' lines: what the program got from its host.
func inputs(t *testing.T, out string) string {
	t.Helper()
	i, j := strings.Index(out, "crypto/rand:"), strings.Index(out, "--- PASS: TestInputs")
	if i < 0 || j < i {
		t.Fatalf("no TestInputs output in:\n%s", out)
	}
	return out[i:j]
}

func TestSameInputsSameExecution(t *testing.T) {
	first, _, code := execGuest(t, newGuestHost(t), "-test.v=true", "-test.run=^TestInputs$", "-arena.seed=3")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, first)
	}
	again, _, _ := execGuest(t, newGuestHost(t), "-test.v=true", "-test.run=^TestInputs$", "-arena.seed=3")
	if first != again {
		t.Errorf("two hosts, one command line and seed, two outputs:\n%s\nand\n%s", first, again)
	}
	other, _, _ := execGuest(t, newGuestHost(t), "-test.v=true", "-test.run=^TestInputs$", "-arena.seed=4")
	line := regexp.MustCompile(`(?m)^(crypto/rand|math/rand/v2|map order):.*$`)
	if a, b := line.FindAllString(inputs(t, first), -1), line.FindAllString(inputs(t, other), -1); len(a) != 3 || strings.Join(a, "\n") == strings.Join(b, "\n") {
		t.Errorf("seeds 3 and 4 gave the same random inputs:\n%s\n%s", a, b)
	}
}

// TestProgramSeesOnlyItsInputs: the environment kept, the clocks from the
// fixed epoch and moved by sleeps, the package directory and a scratch
// /tmp and nothing else of the host's files.
func TestProgramSeesOnlyItsInputs(t *testing.T) {
	h := newGuestHost(t, "ARENA_FOO=bar", "HOME=/root", "PATH=/bin", "GODEBUG=x=1")
	out, _, code := execGuest(t, h, "-test.run=^TestInputs$", "-test.timeout=1m", "-test.v=true")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	got := inputs(t, out)
	for _, want := range []string{
		"now: 2026-01-01T00:00:00Z slept: 1s\n",
		"env: ARENA_FOO=bar ARENA_WASM_HOST=1 GODEBUG=x=1 PWD=" + h.dir + " TMPDIR=/tmp\n",
		"args: -test.paniconexit0 -test.run=^TestInputs$ -test.v=true\n", // the timeout is the host's
		"cwd is the package: true\n",
		`testdata: "hello" <nil>` + "\n",
		"/etc/passwd readable: false\n",
		"temp dir: true <nil>\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the program's inputs lack %q:\n%s", want, got)
		}
	}
}

// TestEachTestItsOwnInstance: a test run among others does what it does
// alone, and the output ends with one verdict.
func TestEachTestItsOwnInstance(t *testing.T) {
	all, _, code := execGuest(t, newGuestHost(t), "-test.v=true")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, all)
	}
	alone, _, _ := execGuest(t, newGuestHost(t), "-test.v=true", "-test.run=^TestInputs$")
	if inputs(t, all) != inputs(t, alone) {
		t.Errorf("TestInputs among the others:\n%s\nalone:\n%s", inputs(t, all), inputs(t, alone))
	}
	if n := len(regexp.MustCompile(`(?m)^PASS$`).FindAllString(all, -1)); n != 1 || !strings.HasSuffix(all, "PASS\n") {
		t.Errorf("%d PASS lines, want one at the end:\n%s", n, all)
	}
}

// TestSeedRunsAgain: a program that asks for a seed runs again under it,
// its first attempt's output dropped.
func TestSeedRunsAgain(t *testing.T) {
	out, _, code := execGuest(t, newGuestHost(t), "-test.run=^TestSeed$")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	// The host's seed only: the program's runs keep the seeds in its code.
	if want := "before: 42 false \nafter: 42 false \n"; !strings.Contains(out, want) || strings.Count(out, "before:") != 1 {
		t.Errorf("output %q, want one run under seed 42, no ARENA_SEED (%q)", out, want)
	}
	out, _, _ = execGuest(t, newGuestHost(t), "-test.run=^TestSeed$", "-arena.seed=42")
	if want := "before: 42 true 42\nafter: 42 true 42\n"; !strings.Contains(out, want) {
		t.Errorf("under -arena.seed=42: output %q, want %q", out, want)
	}
}

func TestSpawnHandsResult(t *testing.T) {
	out, _, code := execGuest(t, newGuestHost(t), "-test.run=^TestSpawn$", "-test.v=true")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if want := `child: exit 0, result {"seed":"5"}, ran: true`; !strings.Contains(out, want) {
		t.Errorf("output %q lacks %q", out, want)
	}
}

func TestFailureExitCode(t *testing.T) {
	out, _, code := execGuest(t, newGuestHost(t), "-guest.fail")
	if code != 1 || !strings.HasSuffix(out, "FAIL\n") || !strings.Contains(out, "failed as asked") {
		t.Errorf("exit %d, output:\n%s\nwant exit 1, the failure and FAIL at the end", code, out)
	}
}

// TestTimeoutOnTheHostClock: a program that sleeps forever on its own
// clock (which a sleep moves at once) is stopped by -test.timeout on the
// host's.
func TestTimeoutOnTheHostClock(t *testing.T) {
	start := time.Now()
	out, errOut, code := execGuest(t, newGuestHost(t), "-test.run=^TestHangs$", "-guest.hang", "-test.timeout=1s")
	if code != 2 || !strings.Contains(errOut, "panic: test timed out after 1s") || !strings.Contains(errOut, "TestHangs") {
		t.Errorf("exit %d, stderr %q, output %q; want exit 2 and the timeout named", code, errOut, out)
	}
	if time.Since(start) > time.Minute {
		t.Errorf("the timeout took %s", time.Since(start))
	}
}

func TestBuildMismatchIsSaid(t *testing.T) {
	h := newGuestHost(t)
	_, errOut, _ := execGuest(t, h, "-test.run=^TestFails$", "-arena.build=0123456789abcdef")
	want := "this test binary is build " + h.Build()[:16] + ", the run to replay was build 0123456789abcdef"
	if !strings.Contains(errOut, want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
	_, errOut, _ = execGuest(t, h, "-test.run=^TestFails$", "-arena.build="+h.Build()[:16])
	if errOut != "" {
		t.Errorf("the same build: stderr %q, want nothing", errOut)
	}
}
