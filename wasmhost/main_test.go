package wasmhost

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// guestWasm is testdata/guest built for wasip1 (TestMain builds it).
var guestWasm []byte

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wasmhost-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := filepath.Join(dir, "guest.wasm")
	cmd := exec.Command("go", "test", "-c", "-o", out, "./testdata/guest")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building testdata/guest for wasip1: %v\n%s", err, b)
		os.Exit(1)
	}
	if guestWasm, err = os.ReadFile(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.RemoveAll(dir)
	goleak.VerifyTestMain(m)
}

// newGuestHost is a host of the guest binary, its package directory the
// guest's, with env as the host's environment.
func newGuestHost(t testing.TB, env ...string) *Host {
	t.Helper()
	dir, err := filepath.Abs("testdata/guest")
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), guestWasm, Config{Dir: dir, Env: env, CacheDir: filepath.Join(os.TempDir(), "arena-wasmhost-test-cache"), Procs: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}
