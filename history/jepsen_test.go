package history_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/history"
)

// Porcupine's module ships Jepsen's etcd histories (test_data/jepsen): a
// single register of reads, writes and compare-and-sets by 5 processes,
// with timeouts. They are read from the module cache.

var porcupineDir = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/anishathalye/porcupine").Output()
	if err != nil {
		return "", fmt.Errorf("go list porcupine: %w", err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", errors.New("go list porcupine: not in the module cache (go mod download)")
	}
	return filepath.Join(dir, "test_data", "jepsen"), nil
})

// jepsenLine is one line of a Jepsen log.
type jepsenLine struct {
	proc     int
	typ      string // invoke, ok, fail
	f        string // read, write, cas
	a, b     int64  // write: a; cas: a→b; read ok: a (found unless nilRead)
	nilRead  bool
	timedOut bool
}

var jepsenRe = regexp.MustCompile(`^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:(invoke|ok|fail)\s+:(read|write|cas)\s+(.*)$`)

func readJepsen(tb testing.TB, n int) []jepsenLine {
	tb.Helper()
	dir, err := porcupineDir()
	if err != nil {
		tb.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, fmt.Sprintf("etcd_%03d.log", n)))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []jepsenLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := jepsenRe.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		l := jepsenLine{typ: m[2], f: m[3]}
		l.proc, _ = strconv.Atoi(m[1])
		switch arg := m[4]; {
		case arg == ":timed-out":
			l.timedOut = true
		case arg == "nil":
			l.nilRead = true
		case strings.HasPrefix(arg, "["):
			fmt.Sscanf(arg, "[%d %d]", &l.a, &l.b)
		default:
			l.a, _ = strconv.ParseInt(arg, 10, 64)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// jepsenRecorder replays a log into a recorder on a virtual clock, a
// microsecond per line: a timed-out read is unknown, a failed cas is a cas
// that did not swap, and an operation never answered stays pending.
func jepsenRecorder(lines []jepsenLine) *history.Recorder[history.KV] {
	clk := clock.NewVirtual(time.Time{})
	rec := history.NewRecorder[history.KV](clk)
	calls := map[int]history.Call[history.KV]{}
	inputs := map[int]history.KV{}
	for _, l := range lines {
		clk.Advance(time.Microsecond)
		if l.typ == "invoke" {
			in := history.Get("r")
			switch l.f {
			case "write":
				in = history.Put("r", l.a)
			case "cas":
				in = history.CAS("r", l.a, l.b)
			}
			inputs[l.proc], calls[l.proc] = in, rec.Invoke(l.proc, in)
			continue
		}
		c, in := calls[l.proc], inputs[l.proc]
		delete(calls, l.proc)
		switch {
		case l.timedOut:
			c.Unknown()
		case l.f == "read":
			c.OK(in.Read(l.a, !l.nilRead))
		case l.f == "cas":
			c.OK(in.Swap(l.typ == "ok"))
		default:
			c.OK(in)
		}
	}
	return rec
}

// The register model of porcupine's own tests, called directly on events.
type etcdInput struct {
	op         uint8 // 0 read, 1 write, 2 cas
	arg1, arg2 int64
}

type etcdOutput struct {
	ok, exists, unknown bool
	value               int64
}

var etcdModel = porcupine.Model{
	Init: func() any { return int64(-1000000) },
	Step: func(state, input, output any) (bool, any) {
		st, in, out := state.(int64), input.(etcdInput), output.(etcdOutput)
		switch in.op {
		case 0:
			return (!out.exists && st == -1000000) || (out.exists && st == out.value) || out.unknown, state
		case 1:
			return true, in.arg1
		}
		ok := (in.arg1 == st && out.ok) || (in.arg1 != st && !out.ok) || out.unknown
		if in.arg1 == st {
			return ok, in.arg2
		}
		return ok, st
	},
}

func jepsenEvents(lines []jepsenLine) []porcupine.Event {
	var evs []porcupine.Event
	ids := map[int]int{}
	id := 0
	for _, l := range lines {
		if l.typ == "invoke" {
			in := etcdInput{}
			switch l.f {
			case "write":
				in = etcdInput{op: 1, arg1: l.a}
			case "cas":
				in = etcdInput{op: 2, arg1: l.a, arg2: l.b}
			}
			evs = append(evs, porcupine.Event{ClientId: l.proc, Kind: porcupine.CallEvent, Value: in, Id: id})
			ids[l.proc] = id
			id++
			continue
		}
		out := etcdOutput{}
		switch {
		case l.timedOut:
			out.unknown = true
		case l.f == "read":
			out.exists, out.value = !l.nilRead, l.a
		case l.f == "cas":
			out.ok = l.typ == "ok"
		}
		evs = append(evs, porcupine.Event{ClientId: l.proc, Kind: porcupine.ReturnEvent, Value: out, Id: ids[l.proc]})
		delete(ids, l.proc)
	}
	for proc, id := range ids {
		evs = append(evs, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: etcdOutput{unknown: true}, Id: id})
	}
	return evs
}

const jepsenHistories = 103

// arena's key-value check and porcupine called directly agree on Jepsen's
// etcd histories (every seventh here; BenchmarkJepsen checks all 103).
func TestJepsenAgreesWithPorcupine(t *testing.T) {
	bad := 0
	for n := 0; n < jepsenHistories; n += 7 {
		lines := readJepsen(t, n)
		want := porcupine.CheckEvents(etcdModel, jepsenEvents(lines))
		err := history.Linearizable("etcd", jepsenRecorder(lines), history.KVModel(), history.WithReportDir("")).Run(context.Background())
		var v *fault.Violation
		switch {
		case want && err != nil:
			t.Errorf("etcd_%03d: porcupine: linearizable; arena: %v", n, err)
		case !want && !errors.As(err, &v):
			t.Errorf("etcd_%03d: porcupine: not linearizable; arena: %v", n, err)
		case !want:
			bad++
		}
	}
	if bad == 0 {
		t.Errorf("no history of the sample is a violation: the sample tests one verdict only")
	}
}
