package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// checkpointFile is the checkpoint's name in the data directory.
const checkpointFile = "checkpoint.json"

// memory is what an agent has learnt from its tasks: how many it did and a
// digest of them, with a checksum. Every legitimate change updates the
// checksum; a corruption does not, which is how the checkpoint tick tells
// one from the other.
type memory struct {
	Tasks  int
	Digest [32]byte
	Sum    [32]byte
}

func (m *memory) checksum() [32]byte {
	var b [40]byte
	binary.BigEndian.PutUint64(b[:8], uint64(m.Tasks))
	copy(b[8:], m.Digest[:])
	return sha256.Sum256(b[:])
}

func (m *memory) ok() bool { return m.checksum() == m.Sum }

// record learns a finished task.
func (m *memory) record(id string) {
	h := sha256.New()
	h.Write(m.Digest[:])
	h.Write([]byte(id))
	copy(m.Digest[:], h.Sum(nil))
	m.Tasks++
	m.Sum = m.checksum()
}

// corrupt flips bits of the digest behind the checksum's back.
func (m *memory) corrupt() { m.Digest[0] ^= 0xff }

func newMemory() memory {
	var m memory
	m.Sum = m.checksum()
	return m
}

// checkpointDoc is the checkpoint's file format.
type checkpointDoc struct {
	Tasks  int       `json:"tasks"`
	Digest string    `json:"digest"`
	Sum    string    `json:"sum"`
	At     time.Time `json:"at"`
}

// store keeps the checkpoint: a file in dir, written atomically (a temporary
// file renamed over it), or in memory when dir is "".
type store struct {
	dir string
	mem *checkpointDoc
}

func (s *store) save(m memory, at time.Time) error {
	doc := checkpointDoc{Tasks: m.Tasks, Digest: hex.EncodeToString(m.Digest[:]), Sum: hex.EncodeToString(m.Sum[:]), At: at}
	if s.dir == "" {
		s.mem = &doc
		return nil
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	tmp := filepath.Join(s.dir, checkpointFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(s.dir, checkpointFile))
}

var errNoCheckpoint = errors.New("no checkpoint")

// load reads the checkpoint back and verifies its checksum.
func (s *store) load() (memory, time.Time, error) {
	var doc checkpointDoc
	if s.dir == "" {
		if s.mem == nil {
			return memory{}, time.Time{}, errNoCheckpoint
		}
		doc = *s.mem
	} else {
		b, err := os.ReadFile(filepath.Join(s.dir, checkpointFile))
		if errors.Is(err, os.ErrNotExist) {
			return memory{}, time.Time{}, errNoCheckpoint
		}
		if err != nil {
			return memory{}, time.Time{}, err
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return memory{}, time.Time{}, fmt.Errorf("checkpoint: %w", err)
		}
	}
	m := memory{Tasks: doc.Tasks}
	d, err1 := hex.DecodeString(doc.Digest)
	sum, err2 := hex.DecodeString(doc.Sum)
	if err := errors.Join(err1, err2); err != nil || len(d) != 32 || len(sum) != 32 {
		return memory{}, time.Time{}, fmt.Errorf("checkpoint: bad digest or checksum")
	}
	copy(m.Digest[:], d)
	copy(m.Sum[:], sum)
	if !m.ok() {
		return memory{}, time.Time{}, errors.New("checkpoint: checksum mismatch")
	}
	return m, doc.At, nil
}
