// Package guest is the program wasmhost's tests run: a test binary built
// for wasip1 that prints what it gets from its host.
package guest

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/internal/wasmguest"
)

var (
	fail = flag.Bool("guest.fail", false, "TestFails fails")
	hang = flag.Bool("guest.hang", false, "TestHangs never returns")
)

// TestInputs prints every input the program reads from its host.
func TestInputs(t *testing.T) {
	b := make([]byte, 8)
	rand.Read(b)
	fmt.Println("crypto/rand:", hex.EncodeToString(b))
	fmt.Println("math/rand/v2:", mrand.Uint64())
	m := map[int]bool{}
	for i := range 16 {
		m[i] = true
	}
	var order []string
	for k := range m {
		order = append(order, fmt.Sprint(k))
	}
	fmt.Println("map order:", strings.Join(order, ","))
	start := time.Now()
	time.Sleep(time.Second)
	fmt.Println("now:", start.UTC().Format(time.RFC3339), "slept:", time.Since(start).Round(time.Millisecond))
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ARENA_WASM_BUILD=") {
			env = append(env, kv)
		}
	}
	slices.Sort(env)
	fmt.Println("env:", strings.Join(env, " "))
	fmt.Println("args:", strings.Join(os.Args[1:], " "))
	wd, _ := os.Getwd()
	fmt.Println("cwd is the package:", filepath.Base(wd) == "guest")
	data, err := os.ReadFile("testdata/hello.txt")
	fmt.Printf("testdata: %q %v\n", data, err)
	_, err = os.ReadFile("/etc/passwd")
	fmt.Println("/etc/passwd readable:", err == nil)
	dir := t.TempDir()
	err = os.WriteFile(filepath.Join(dir, "x"), []byte("x"), 0o600)
	fmt.Println("temp dir:", strings.HasPrefix(dir, "/tmp/"), err)
}

// TestSeed asks for seed 42: the instance runs again under it.
func TestSeed(t *testing.T) {
	seed, override := wasmguest.InstanceSeed()
	fmt.Println("before:", seed, override, os.Getenv("ARENA_SEED"))
	wasmguest.Seed(42)
	seed, override = wasmguest.InstanceSeed()
	fmt.Println("after:", seed, override, os.Getenv("ARENA_SEED"))
}

// TestSpawn runs TestChild in a child instance under seed 5.
func TestSpawn(t *testing.T) {
	if wasmguest.ChildAs() != "" {
		t.Skip("a child")
	}
	c, err := wasmguest.Spawn("^TestChild$", 5, "child")
	if err != nil {
		t.Fatal(err)
	}
	o, err := c.Wait()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("child: exit %d, result %s, ran: %v\n", o.Exit, o.Result, strings.Contains(o.Output, "--- PASS: TestChild"))
}

// TestChild hands its seed to the parent that spawned it.
func TestChild(t *testing.T) {
	if wasmguest.ChildAs() != "child" {
		return
	}
	wasmguest.Hand([]byte(`{"seed":"` + os.Getenv("ARENA_SEED") + `"}`))
}

func TestFails(t *testing.T) {
	if *fail {
		t.Error("failed as asked")
	}
}

func TestHangs(t *testing.T) {
	for *hang {
		time.Sleep(time.Hour)
	}
}
