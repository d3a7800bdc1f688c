package wasmhost

import (
	"crypto/sha256"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero/sys"
)

// Epoch is where every instance's wall clock starts: midnight UTC,
// 2026-01-01. A fixed start, not the host's time, keeps time.Now outside
// a synctest bubble a function of the seed too.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// tick is how far both clocks move on each reading. A clock that moved
// only on sleeps would let a program that polls the time spin for good;
// one that moved by wazero's default millisecond would make the testing
// package's durations, read a few times a test, say seconds for work of
// microseconds.
const tick = time.Microsecond

// clocks are one instance's clocks: they move by tick on each reading
// and by the whole sleep on each sleep, never with the host's time. The
// instance is single-threaded, so reads and sleeps come one at a time.
type clocks struct {
	elapsed time.Duration // since the instance started
	// stop, once set (the run's context ended), makes the next reading
	// or sleep end the instance: the Go runtime reads the clock in its
	// scheduler, so a program cannot run on long without one.
	stop *atomic.Bool
}

// stopIfAsked ends the instance when its run was stopped: a host
// function's panic with an exit error ends the call into the program.
func (c *clocks) stopIfAsked() {
	if c.stop != nil && c.stop.Load() {
		panic(sys.NewExitError(exitStopped))
	}
}

// nanotime is the monotonic clock, in nanoseconds since the start.
func (c *clocks) nanotime() int64 {
	c.stopIfAsked()
	c.elapsed += tick
	return int64(c.elapsed)
}

// walltime is the wall clock: Epoch plus the monotonic time.
func (c *clocks) walltime() (sec int64, nsec int32) {
	c.stopIfAsked()
	c.elapsed += tick
	t := Epoch.Add(c.elapsed)
	return t.Unix(), int32(t.Nanosecond())
}

// nanosleep is WASI poll_oneoff's clock: the runtime sleeps only when
// every goroutine waits on a timer, and the sleep moves time to it.
func (c *clocks) nanosleep(ns int64) {
	c.stopIfAsked()
	if ns > 0 {
		c.elapsed += time.Duration(ns)
	}
}

// randomSource is the instance's random bytes (WASI random_get: the Go
// runtime's own seed, map order, select, math/rand, crypto/rand), a
// ChaCha8 stream keyed by the seed.
func randomSource(seed uint64) io.Reader {
	var key [32]byte
	h := sha256.New()
	h.Write([]byte("arena-wasm host random v1"))
	binary.Write(h, binary.LittleEndian, seed)
	copy(key[:], h.Sum(nil))
	return rand.NewChaCha8(key)
}
