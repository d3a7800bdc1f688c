package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ares-arena/arena/agentapi"
)

// ledgerFile is the ledger's name in the data directory.
const ledgerFile = "ledger.log"

type taskStatus uint8

const (
	taskPending taskStatus = iota
	taskHanded
	taskDone
	taskFailed
)

// ledger is an agent's record of its tasks: accepted (A), handed on (S),
// done (D), failed (F). Each entry is appended to the file before the
// in-memory state changes, so what the agent acknowledged survives a kill:
// a write that returned is in the kernel's page cache, whatever happens to
// the process. (Surviving a crash of the host would take an fsync per entry;
// that is not the fault being tested.)
type ledger struct {
	w        io.Writer // nil: memory only
	file     *os.File
	accepted []string
	status   map[string]taskStatus
	handed   map[string][]string // route → tasks handed to it
	queue    []string            // pending tasks, oldest first
	counts   agentapi.Tasks
}

// openLedger opens (and replays) the ledger in dir; dir "" keeps it in
// memory.
func openLedger(dir string) (*ledger, error) {
	l := &ledger{status: map[string]taskStatus{}, handed: map[string][]string{}}
	if dir == "" {
		return l, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, ledgerFile), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if err := l.load(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("ledger %s: %w", f.Name(), err)
	}
	l.w, l.file = f, f
	return l, nil
}

// load replays the file. A torn last line (the process died mid-write) is
// cut off: its task was never acknowledged, and the next entry must not be
// glued to it.
func (l *ledger) load(f *os.File) error {
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	if i := bytes.LastIndexByte(data, '\n'); i+1 < len(data) {
		data = data[:i+1]
		if err := f.Truncate(int64(len(data))); err != nil {
			return err
		}
	}
	return l.replay(bytes.NewReader(data))
}

func (l *ledger) close() error {
	if l.file == nil {
		return nil
	}
	return l.file.Close()
}

// replay rebuilds the state from the entries.
func (l *ledger) replay(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "A":
			l.apply(f[1], taskPending, "")
		case "S":
			if len(f) < 3 {
				continue
			}
			l.apply(f[1], taskHanded, f[2])
		case "D":
			l.apply(f[1], taskDone, "")
		case "F":
			l.apply(f[1], taskFailed, "")
		default:
			return fmt.Errorf("line %d: unknown entry %q", n, f[0])
		}
	}
	return sc.Err()
}

func (l *ledger) apply(id string, st taskStatus, to string) {
	old, known := l.status[id]
	if st == taskPending {
		if known {
			return
		}
		l.status[id] = taskPending
		l.accepted = append(l.accepted, id)
		l.queue = append(l.queue, id)
		l.counts.Accepted++
		l.counts.Pending++
		return
	}
	if !known || old != taskPending {
		return
	}
	l.status[id] = st
	if i := slices.Index(l.queue, id); i >= 0 {
		l.queue = slices.Delete(l.queue, i, i+1)
	}
	l.counts.Pending--
	switch st {
	case taskHanded:
		l.handed[to] = append(l.handed[to], id)
		l.counts.Handed++
	case taskDone:
		l.counts.Done++
	case taskFailed:
		l.counts.Failed++
	}
}

func (l *ledger) write(line string) error {
	if l.w == nil {
		return nil
	}
	_, err := io.WriteString(l.w, line)
	return err
}

var errBadTask = errors.New("bad task id: empty or with white space")

// accept records a new task. It reports false for a task already known
// (handed on twice by a sender that missed the acknowledgement).
func (l *ledger) accept(id string) (bool, error) {
	if strings.ContainsAny(id, " \t\r\n") || id == "" {
		return false, errBadTask
	}
	if _, ok := l.status[id]; ok {
		return false, nil
	}
	if err := l.write("A " + id + "\n"); err != nil {
		return false, err
	}
	l.apply(id, taskPending, "")
	return true, nil
}

func (l *ledger) hand(id, to string) error {
	if err := l.write("S " + id + " " + to + "\n"); err != nil {
		return err
	}
	l.apply(id, taskHanded, to)
	return nil
}

func (l *ledger) finish(id string, ok bool, reason string) error {
	st, line := taskDone, "D "+id+"\n"
	if !ok {
		st, line = taskFailed, "F "+id+" "+reason+"\n"
	}
	if err := l.write(line); err != nil {
		return err
	}
	l.apply(id, st, "")
	return nil
}

// next returns the oldest pending task.
func (l *ledger) next() (string, bool) {
	if len(l.queue) == 0 {
		return "", false
	}
	return l.queue[0], true
}

// maxSeq returns the highest n of the tasks "<prefix>-n" accepted, so that a
// restarted source does not reuse IDs.
func (l *ledger) maxSeq(prefix string) int {
	max := 0
	for _, id := range l.accepted {
		if rest, ok := strings.CutPrefix(id, prefix+"-"); ok {
			if n, err := strconv.Atoi(rest); err == nil && n > max {
				max = n
			}
		}
	}
	return max
}

func (l *ledger) snapshot() agentapi.Ledger {
	out := agentapi.Ledger{Accepted: slices.Clone(l.accepted), Handed: map[string][]string{}}
	for to, ids := range l.handed {
		out.Handed[to] = slices.Clone(ids)
	}
	return out
}
