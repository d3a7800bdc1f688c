package history

import (
	"fmt"
	"strings"
	"unique"
)

// LogKind is the kind of an operation on an append-only log (a stream, a
// queue with sequence numbers).
type LogKind uint8

// Log operations.
const (
	LogAppend LogKind = iota + 1 // append Value; Seq is the sequence number the log gave it (output)
	LogRead                      // read at Seq (input): Value and Found are the output
)

// LogOp is one operation on an append-only log, input and output together,
// as a Recorder[LogOp] keeps it: a publish (append) acknowledged with its
// sequence number, or a read (a consumer's delivery, a read by sequence).
// Sequence numbers start at 1, as in streams and Raft logs; a Seq of 0 on
// an acknowledged append means the log did not say.
//
// The log's name (Key: a stream, a queue) is interned, as KV's keys are: a
// LogOp is 32 bytes, an Op[LogOp] 56.
type LogOp struct {
	key   unique.Handle[string]
	Value int64 // Append: the value; Read: the value read (output)
	Seq   int64 // Append: its sequence number (output); Read: the one read
	Kind  LogKind
	Found bool // Read: a value was at Seq (output)
}

// Append appends v to the log key.
func Append(key string, v int64) LogOp {
	return LogOp{Kind: LogAppend, key: unique.Make(key), Value: v}
}

// ReadAt reads the log key at seq.
func ReadAt(key string, seq int64) LogOp {
	return LogOp{Kind: LogRead, key: unique.Make(key), Seq: seq}
}

// Key returns the log the operation is on.
func (o LogOp) Key() string { return keyOf(o.key) }

// Acked returns the Append with its output: the sequence number it got.
func (o LogOp) Acked(seq int64) LogOp {
	o.Seq = seq
	return o
}

// Read returns the ReadAt with its output: the value found, if found.
func (o LogOp) Read(v int64, found bool) LogOp {
	o.Value, o.Found = v, found
	if !found {
		o.Value = 0
	}
	return o
}

// String describes the operation: append(s, 7) = 3, read(s, 3) = 7,
// read(s, 4) = none.
func (o LogOp) String() string {
	switch o.Kind {
	case LogAppend:
		if o.Seq == 0 {
			return fmt.Sprintf("append(%s, %d)", o.Key(), o.Value)
		}
		return fmt.Sprintf("append(%s, %d) = %d", o.Key(), o.Value, o.Seq)
	case LogRead:
		if !o.Found {
			return fmt.Sprintf("read(%s, %d) = none", o.Key(), o.Seq)
		}
		return fmt.Sprintf("read(%s, %d) = %d", o.Key(), o.Seq, o.Value)
	}
	return fmt.Sprintf("log(kind %d, %s)", o.Kind, o.Key())
}

// LogState is the contents of one log: an immutable list, shared between
// states (an append makes a new head).
type LogState struct {
	Len  int64
	head *logEntry
	hash uint64
}

type logEntry struct {
	value int64
	prev  *logEntry
}

// at returns the value at seq (1-based).
func (s LogState) at(seq int64) (int64, bool) {
	if seq < 1 || seq > s.Len {
		return 0, false
	}
	e := s.head
	for i := s.Len; i > seq; i-- {
		e = e.prev
	}
	return e.value, true
}

func (s LogState) append(v int64) LogState {
	return LogState{Len: s.Len + 1, head: &logEntry{value: v, prev: s.head}, hash: (s.hash ^ uint64(v)) * 0x100000001b3}
}

func logEqual(a, b LogState) bool {
	if a.Len != b.Len || a.hash != b.hash {
		return false
	}
	for x, y := a.head, b.head; x != y; x, y = x.prev, y.prev {
		if x.value != y.value {
			return false
		}
	}
	return true
}

// String lists the log, its last ten values at most: [.. 4 5 6].
func (s LogState) String() string {
	var vals []string
	for e := s.head; e != nil && len(vals) < 10; e = e.prev {
		vals = append(vals, fmt.Sprint(e.value))
	}
	for i, j := 0, len(vals)-1; i < j; i, j = i+1, j-1 {
		vals[i], vals[j] = vals[j], vals[i]
	}
	if s.Len > int64(len(vals)) {
		vals = append([]string{".."}, vals...)
	}
	return "[" + strings.Join(vals, " ") + "]"
}

func logStep(s LogState, op Op[LogOp]) (bool, LogState) {
	o := op.Value
	unknown := op.Status != OK
	switch o.Kind {
	case LogAppend:
		if !unknown && o.Seq != 0 && o.Seq != s.Len+1 {
			return false, s
		}
		return true, s.append(o.Value)
	case LogRead:
		if unknown {
			return true, s
		}
		v, found := s.at(o.Seq)
		return found == o.Found && (!found || v == o.Value), s
	}
	return false, s
}

// LogModel is a linearizable append-only log: an acknowledged append got
// the next sequence number, and a read at a sequence number sees what was
// appended there, or nothing yet. Logs (keys) are checked apart.
func LogModel() Model[LogOp, LogState] {
	return Model[LogOp, LogState]{
		Init:          func() LogState { return LogState{} },
		Step:          logStep,
		Equal:         logEqual,
		Hash:          func(s LogState) uint64 { return s.hash ^ uint64(s.Len) },
		Partition:     LogOp.Key,
		ReadOnly:      func(o LogOp) bool { return o.Kind == LogRead },
		Describe:      func(op Op[LogOp]) string { return op.Value.String() },
		DescribeState: LogState.String,
	}
}
