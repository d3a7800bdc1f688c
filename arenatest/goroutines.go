package arenatest

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/ares-arena/arena/sim"
)

// goroutine is one goroutine of a stack dump (runtime.Stack with all
// set), as much of it as a message needs.
type goroutine struct {
	id        int
	state     string // "chan receive (durable)", "IO wait", "select", …
	bubble    int    // the synctest bubble it belongs to; 0: none
	top       string // the innermost function outside the runtime
	createdBy string // the function whose go statement started it
	node      string // the sim node whose Start started it (sim.NodeLabel); "" if none or unknown
	test      bool   // started by the test function (testLabel)
	stack     string // the whole block
}

// The header of a goroutine's block: with GODEBUG tracebacklabels=1 its
// state ends with its pprof labels, ` labels:{"sim.node": "raft-1"}`.
var (
	header    = regexp.MustCompile(`^goroutine (\d+) \[(.*)\]:$`)
	labelPair = regexp.MustCompile(`"((?:[^"\\]|\\.)*)": "((?:[^"\\]|\\.)*)"`)
)

// goroutines parses a dump of every goroutine.
func goroutines(dump []byte) []goroutine {
	var gs []goroutine
	for _, block := range bytes.Split(dump, []byte("\n\n")) {
		lines := strings.Split(strings.TrimSpace(string(block)), "\n")
		m := header.FindStringSubmatch(lines[0])
		if m == nil {
			continue
		}
		g := goroutine{stack: string(block)}
		g.id, _ = strconv.Atoi(m[1])
		state, labels, _ := strings.Cut(m[2], " labels:{")
		g.state, g.bubble = splitState(state)
		for _, kv := range labelPair.FindAllStringSubmatch(labels, -1) {
			switch kv[1] {
			case sim.NodeLabel:
				g.node = kv[2]
			case testLabel:
				g.test = true
			}
		}
		for _, fn := range lines[1:] {
			if strings.HasPrefix(fn, "\t") || strings.HasPrefix(fn, "...") {
				continue // a file:line, or frames elided
			}
			if rest, ok := strings.CutPrefix(fn, "created by "); ok {
				g.createdBy, _, _ = strings.Cut(rest, " in goroutine")
				break
			}
			if g.top == "" && !runtimeFrame(fn) {
				g.top = funcName(fn)
			}
		}
		gs = append(gs, g)
	}
	return gs
}

// splitState splits "chan receive (durable), 2 minutes, synctest bubble 3"
// into the state and the bubble.
func splitState(s string) (string, int) {
	parts := strings.Split(s, ", ")
	state, bubble := parts[0], 0
	for _, p := range parts[1:] {
		if b, ok := strings.CutPrefix(p, "synctest bubble "); ok {
			bubble, _ = strconv.Atoi(b)
		}
	}
	return state, bubble
}

func runtimeFrame(fn string) bool {
	for _, p := range []string{"runtime.", "internal/", "sync.", "time.Sleep", "testing/synctest."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// funcName drops the arguments of a frame: "pkg.(*T).m(0xc…)" → "pkg.(*T).m".
func funcName(frame string) string {
	if i := strings.LastIndex(frame, "("); i > 0 && strings.HasSuffix(frame, ")") {
		return frame[:i]
	}
	return frame
}

// durable reports whether the goroutine waits on something inside its
// bubble only (synctest marks those states "(durable)"): it can be woken
// by the bubble alone, and the bubble's clock may move past it.
func (g goroutine) durable() bool { return strings.Contains(g.state, "(durable)") }

// outside reports whether the goroutine is blocked on something the
// bubble does not control: a real socket or file (IO wait), a system call,
// a lock, a channel made outside the bubble. While it is, simulated time
// cannot move.
func (g goroutine) outside() bool {
	switch {
	case g.durable(), g.state == "running", g.state == "runnable":
		return false
	}
	return true
}

// name says which goroutine it is: "github.com/hashicorp/raft.(*Raft).run
// [select (durable)], started by github.com/hashicorp/raft.(*raftState).goFunc".
func (g goroutine) name() string {
	s := fmt.Sprintf("goroutine %d %s [%s]", g.id, g.top, g.state)
	if g.createdBy != "" {
		s += ", started by " + g.createdBy
	}
	return s
}

// testLabel is the pprof label Simulate gives the test function's
// goroutine, which the goroutines it starts inherit (those a node's Start
// starts carry sim.NodeLabel as well).
const testLabel = "arena.simulate"

// dumpLabelled is dumpAll with each goroutine's pprof labels in its
// header: the runtime prints them under GODEBUG tracebacklabels=1 (Go
// 1.26), which is set for the dump and put back after it.
func dumpLabelled() []byte {
	godebugMu.Lock()
	defer godebugMu.Unlock()
	old, had := os.LookupEnv("GODEBUG")
	v := "tracebacklabels=1"
	if old != "" {
		v = old + "," + v
	}
	if os.Setenv("GODEBUG", v) != nil {
		return dumpAll()
	}
	defer func() {
		if had {
			os.Setenv("GODEBUG", old)
		} else {
			os.Unsetenv("GODEBUG")
		}
	}()
	return dumpAll()
}

var godebugMu sync.Mutex

// dumpAll returns runtime.Stack of every goroutine, growing the buffer
// until it fits.
func dumpAll() []byte {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

// self returns the calling goroutine's ID and bubble.
func self() (id, bubble int) {
	buf := make([]byte, 256)
	buf = buf[:runtime.Stack(buf, false)]
	gs := goroutines(buf)
	if len(gs) == 0 {
		return 0, 0
	}
	return gs[0].id, gs[0].bubble
}
