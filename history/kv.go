package history

import (
	"fmt"
	"unique"
)

// KVKind is the kind of a key-value operation.
type KVKind uint8

// Key-value operations.
const (
	KVGet    KVKind = iota + 1 // read a key: Value and Found are the output
	KVPut                      // write Value
	KVCAS                      // compare-and-set: if the key holds Expect, write Value; Swapped is the output
	KVDelete                   // remove the key
)

// KV is one operation on a key-value map (or, keys aside, on a register),
// input and output together, as a Recorder[KV] keeps it; make it with Get,
// Put, CAS or Delete. Values are integers: a workload that writes each value
// once (Jepsen's way) makes every read attributable to one write. Keys are
// interned (package unique), so a recorder keeps each key's bytes once: a
// KV is 32 bytes, an Op[KV] 56.
type KV struct {
	key    unique.Handle[string]
	Value  int64  // Put: written; CAS: the new value; Get: read (output)
	Expect int64  // CAS: the value it expects
	Kind   KVKind //
	Found  bool   // Get: the key had a value (output)
	// Swapped: a CAS found Expect and wrote Value (output).
	Swapped bool
}

// Get reads key.
func Get(key string) KV { return KV{Kind: KVGet, key: unique.Make(key)} }

// Put writes v to key.
func Put(key string, v int64) KV { return KV{Kind: KVPut, key: unique.Make(key), Value: v} }

// CAS writes v to key if it holds expect.
func CAS(key string, expect, v int64) KV {
	return KV{Kind: KVCAS, key: unique.Make(key), Expect: expect, Value: v}
}

// Delete removes key.
func Delete(key string) KV { return KV{Kind: KVDelete, key: unique.Make(key)} }

// Key returns the key the operation is on.
func (o KV) Key() string { return keyOf(o.key) }

func keyOf(h unique.Handle[string]) string {
	if h == (unique.Handle[string]{}) {
		return ""
	}
	return h.Value()
}

// Read returns the Get with its output: the value found, if found.
func (o KV) Read(v int64, found bool) KV {
	o.Value, o.Found = v, found
	if !found {
		o.Value = 0
	}
	return o
}

// Swap returns the CAS with its output: whether it swapped.
func (o KV) Swap(swapped bool) KV {
	o.Swapped = swapped
	return o
}

// String describes the operation: get(k) = 3, get(k) = none, put(k, 3),
// cas(k, 1→2) swapped, cas(k, 1→2) not swapped, delete(k).
func (o KV) String() string {
	switch o.Kind {
	case KVGet:
		if !o.Found {
			return fmt.Sprintf("get(%s) = none", o.Key())
		}
		return fmt.Sprintf("get(%s) = %d", o.Key(), o.Value)
	case KVPut:
		return fmt.Sprintf("put(%s, %d)", o.Key(), o.Value)
	case KVCAS:
		verdict := "not swapped"
		if o.Swapped {
			verdict = "swapped"
		}
		return fmt.Sprintf("cas(%s, %d→%d) %s", o.Key(), o.Expect, o.Value, verdict)
	case KVDelete:
		return fmt.Sprintf("delete(%s)", o.Key())
	}
	return fmt.Sprintf("kv(kind %d, %s)", o.Kind, o.Key())
}

// KVState is the state of one key: its value, if it has one.
type KVState struct {
	Value   int64
	Present bool
}

func (s KVState) String() string {
	if !s.Present {
		return "none"
	}
	return fmt.Sprint(s.Value)
}

// kvStep is the sequential specification of one key.
func kvStep(s KVState, op Op[KV]) (bool, KVState) {
	o := op.Value
	unknown := op.Status != OK
	switch o.Kind {
	case KVGet:
		if unknown {
			return true, s
		}
		return o.Found == s.Present && (!o.Found || o.Value == s.Value), s
	case KVPut:
		return true, KVState{Value: o.Value, Present: true}
	case KVCAS:
		match := s.Present && s.Value == o.Expect
		if !unknown && o.Swapped != match {
			return false, s
		}
		if match {
			return true, KVState{Value: o.Value, Present: true}
		}
		return true, s
	case KVDelete:
		return true, KVState{}
	}
	return false, s
}

func kvHash(s KVState) uint64 {
	h := uint64(s.Value) * 0x9e3779b97f4a7c15
	if s.Present {
		h ^= 1
	}
	return h
}

// kvModel is the key-value model; partitioned says whether keys are parts.
func kvModel(partitioned bool) Model[KV, KVState] {
	m := Model[KV, KVState]{
		Init:          func() KVState { return KVState{} },
		Step:          kvStep,
		Hash:          kvHash,
		Equal:         func(a, b KVState) bool { return a == b },
		ReadOnly:      func(o KV) bool { return o.Kind == KVGet },
		Describe:      func(op Op[KV]) string { return op.Value.String() },
		DescribeState: KVState.String,
	}
	if partitioned {
		m.Partition = KV.Key
	}
	return m
}

// KVModel is a linearizable key-value map of get, put, compare-and-set and
// delete: each key is an independent register, checked on its own.
func KVModel() Model[KV, KVState] { return kvModel(true) }

// Register is a single linearizable register of reads (get), writes (put),
// compare-and-sets and deletes: KVModel without keys, every operation on
// the one register whatever its Key.
func Register() Model[KV, KVState] { return kvModel(false) }
