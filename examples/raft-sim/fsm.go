package raftsim

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/hashicorp/raft"
)

// The key-value store's commands, one byte of opcode, then the key, then
// (for appends) the value.
const (
	opAppend byte = 'A' // append a value to a key's list
	opRead   byte = 'R' // read a key's list, through the log (a linearizable read)
)

// encode returns the command bytes.
func encode(op byte, key string, value uint64) []byte {
	b := make([]byte, 0, 2+len(key)+8)
	b = append(b, op, byte(len(key)))
	b = append(b, key...)
	return binary.BigEndian.AppendUint64(b, value)
}

func decode(b []byte) (op byte, key string, value uint64, err error) {
	if len(b) < 2 || len(b) != 2+int(b[1])+8 {
		return 0, "", 0, fmt.Errorf("kv: malformed command of %d bytes", len(b))
	}
	n := int(b[1])
	return b[0], string(b[2 : 2+n]), binary.BigEndian.Uint64(b[2+n:]), nil
}

// ReadResult is what a read answers: how many values the key holds, and
// the last one.
type ReadResult struct {
	Len  int
	Last uint64
}

// KV is the replicated state machine: each key holds the list of the
// values appended to it, in the order the log committed them. A list
// (rather than a register) lets a check see every acknowledged write in
// the final state: none may be missing, none may appear twice.
type KV struct {
	mu   sync.Mutex
	data map[string][]uint64
}

// NewKV returns an empty store: a node's memory after a (re)start, before
// raft restores its snapshot and replays its log.
func NewKV() *KV { return &KV{data: map[string][]uint64{}} }

var _ raft.FSM = (*KV)(nil)

// Apply applies a committed command: an append returns the list's new
// length, a read its ReadResult.
func (kv *KV) Apply(l *raft.Log) any {
	op, key, value, err := decode(l.Data)
	if err != nil {
		return err
	}
	kv.mu.Lock()
	defer kv.mu.Unlock()
	switch op {
	case opAppend:
		kv.data[key] = append(kv.data[key], value)
		return len(kv.data[key])
	case opRead:
		vs := kv.data[key]
		r := ReadResult{Len: len(vs)}
		if len(vs) > 0 {
			r.Last = vs[len(vs)-1]
		}
		return r
	}
	return fmt.Errorf("kv: unknown opcode %q", op)
}

// Values returns a copy of a key's list.
func (kv *KV) Values(key string) []uint64 {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	return slices.Clone(kv.data[key])
}

// ValuesFrom returns a copy of a key's list from index from on.
func (kv *KV) ValuesFrom(key string, from int) []uint64 {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	vs := kv.data[key]
	if from >= len(vs) {
		return nil
	}
	return slices.Clone(vs[from:])
}

// Keys returns the keys, sorted.
func (kv *KV) Keys() []string {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	keys := make([]string, 0, len(kv.data))
	for k := range kv.data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Snapshot captures the state: the lists are copied (cheap next to a
// day's log), so Persist can encode them while Apply goes on.
func (kv *KV) Snapshot() (raft.FSMSnapshot, error) {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	c := make(map[string][]uint64, len(kv.data))
	for k, v := range kv.data {
		c[k] = slices.Clone(v)
	}
	return kvSnapshot(c), nil
}

// Restore replaces the state with a snapshot's.
func (kv *KV) Restore(r io.ReadCloser) error {
	defer r.Close()
	data, err := decodeSnapshot(bufio.NewReader(r))
	if err != nil {
		return fmt.Errorf("kv: restore: %w", err)
	}
	kv.mu.Lock()
	defer kv.mu.Unlock()
	kv.data = data
	return nil
}

type kvSnapshot map[string][]uint64

// Persist writes the snapshot: the number of keys, then each key (its
// length and bytes) and its list (its length and the values), all
// uvarints. A day's lists hold a million values: JSON was a sixth of the
// simulation's CPU at each restart.
func (s kvSnapshot) Persist(sink raft.SnapshotSink) error {
	w := bufio.NewWriter(sink)
	var buf [binary.MaxVarintLen64]byte
	put := func(v uint64) { w.Write(buf[:binary.PutUvarint(buf[:], v)]) }
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	put(uint64(len(keys)))
	for _, k := range keys {
		put(uint64(len(k)))
		w.WriteString(k)
		put(uint64(len(s[k])))
		for _, v := range s[k] {
			put(v)
		}
	}
	if err := w.Flush(); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (kvSnapshot) Release() {}

// decodeSnapshot reads what Persist wrote.
func decodeSnapshot(r *bufio.Reader) (map[string][]uint64, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	data := make(map[string][]uint64, min(n, 1<<16))
	for range n {
		kl, err := binary.ReadUvarint(r)
		if err != nil || kl > 255 {
			return nil, fmt.Errorf("key length %d: %v", kl, err)
		}
		key := make([]byte, kl)
		if _, err := io.ReadFull(r, key); err != nil {
			return nil, err
		}
		vl, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, err
		}
		vs := make([]uint64, 0, min(vl, 1<<20))
		for range vl {
			v, err := binary.ReadUvarint(r)
			if err != nil {
				return nil, err
			}
			vs = append(vs, v)
		}
		data[string(key)] = vs
	}
	return data, nil
}
