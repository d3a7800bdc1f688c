package history

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ares-arena/arena/fault"
)

// Message is one message a Reader found in a log.
type Message struct {
	Key   string
	Seq   int64
	Value int64
}

// Reader reads what a log holds at check time: every message still
// readable (a stream read from its first sequence number, a queue's
// messages not consumed yet). A nil Reader means the recorded reads (a
// consumer's deliveries, LogRead operations) are all there is.
type Reader func(ctx context.Context) ([]Message, error)

// Checks of queues and streams, on a Recorder[LogOp] (appends: publishes
// with their acknowledged sequence numbers; reads: deliveries) and a Reader.
// Each takes the history first and reads second, so everything it holds
// against the log was acknowledged before the log was read.

// NoLostWrites returns a check that no acknowledged write was lost: every
// append acknowledged (OK) was consumed (an OK read) or is readable now
// (read), at the sequence number it was acknowledged with when it got one.
// Appends with unknown outcomes may be missing (Jepsen's way); failed ones
// are not looked for.
func NoLostWrites(name string, rec *Recorder[LogOp], read Reader) fault.Check {
	return streamCheck(name, rec, read, lostWrites)
}

// NoDuplicates returns a check that nothing is in the log twice: no value at
// two sequence numbers (an append applied twice, a retried publish the log
// did not deduplicate), and no sequence number with two values.
func NoDuplicates(name string, rec *Recorder[LogOp], read Reader) fault.Check {
	return streamCheck(name, rec, read, duplicates)
}

// NoGaps returns a check that sequence numbers are gapless: between the
// lowest and the highest seen (consumed or readable) every one holds a
// message, and no consumer (a client's reads, in order) skipped one that
// holds a message.
func NoGaps(name string, rec *Recorder[LogOp], read Reader) fault.Check {
	return streamCheck(name, rec, read, gaps)
}

func streamCheck(name string, rec *Recorder[LogOp], read Reader, find func(*logView) *fault.Violation) fault.Check {
	if rec == nil {
		panic("arena: history: " + name + ": nil recorder")
	}
	return fault.Check{Name: name, Run: func(ctx context.Context) error {
		lv := &logView{h: rec.History(), keys: map[string]*logKey{}}
		var msgs []Message
		if read != nil {
			var err error
			if msgs, err = read(ctx); err != nil {
				return fmt.Errorf("read the log: %w", err)
			}
		}
		if !lv.index(msgs) {
			return fmt.Errorf("%w: nothing read from the log yet", fault.ErrNotApplicable)
		}
		if v := find(lv); v != nil {
			return v
		}
		return nil
	}}
}

// logView is what was seen of each log: by the recorded reads and appends,
// and by the reader.
type logView struct {
	h    History[LogOp]
	keys map[string]*logKey
}

type logKey struct {
	at       map[int64][]int64 // seq → the values seen there (read, readable)
	where    map[int64][]int64 // value → the seqs it was seen at, acknowledged appends included
	values   map[int64]bool    // the values seen (read, readable), at any seq
	readable map[int64]bool    // seqs the reader found
}

func (lv *logView) key(k string) *logKey {
	lk := lv.keys[k]
	if lk == nil {
		lk = &logKey{at: map[int64][]int64{}, where: map[int64][]int64{}, values: map[int64]bool{}, readable: map[int64]bool{}}
		lv.keys[k] = lk
	}
	return lk
}

func (lk *logKey) saw(seq, v int64) {
	lk.values[v] = true
	if !slices.Contains(lk.at[seq], v) {
		lk.at[seq] = append(lk.at[seq], v)
	}
	if !slices.Contains(lk.where[v], seq) {
		lk.where[v] = append(lk.where[v], seq)
	}
}

// index records what was seen; false when nothing was read at all.
func (lv *logView) index(msgs []Message) bool {
	read := len(msgs) > 0
	for _, op := range lv.h.Ops {
		o := op.Value
		switch {
		case op.Status != OK:
		case o.Kind == LogRead && o.Found:
			lv.key(o.Key()).saw(o.Seq, o.Value)
			read = true
		case o.Kind == LogRead:
			read = true
		}
	}
	for _, m := range msgs {
		lk := lv.key(m.Key)
		lk.saw(m.Seq, m.Value)
		lk.readable[m.Seq] = true
	}
	for _, op := range lv.h.Ops { // acknowledged positions, after what was read
		if o := op.Value; op.Status == OK && o.Kind == LogAppend && o.Seq != 0 {
			lk := lv.key(o.Key())
			if !slices.Contains(lk.where[o.Value], o.Seq) {
				lk.where[o.Value] = append(lk.where[o.Value], o.Seq)
			}
		}
	}
	return read
}

// seen reports whether value v was read or is readable in log k, and at seq
// if seq is not 0.
func (lv *logView) seen(k string, v, seq int64) bool {
	lk := lv.keys[k]
	if lk == nil {
		return false
	}
	if seq == 0 {
		return lk.values[v]
	}
	return slices.Contains(lk.at[seq], v)
}

// op makes a violation's operation of a recorded one.
func (lv *logView) op(op Op[LogOp], note string) fault.ViolationOp {
	vo := fault.ViolationOp{Client: int(op.Client), Op: op.Value.String(), Call: lv.h.Time(op.Call)}
	if op.Status != OK {
		vo.Op += " (" + op.Status.String() + ")"
	}
	if note != "" {
		vo.Op += " — " + note
	}
	if op.Status == OK || op.Status == Failed {
		vo.Return = lv.h.Time(op.Return)
	}
	return vo
}

func lostWrites(lv *logView) *fault.Violation {
	v := &fault.Violation{}
	acked, lost := 0, 0
	for _, op := range lv.h.Ops {
		o := op.Value
		if op.Status != OK || o.Kind != LogAppend {
			continue
		}
		acked++
		if lv.seen(o.Key(), o.Value, o.Seq) {
			continue
		}
		lost++
		note := "acknowledged, neither consumed nor readable"
		if o.Seq != 0 {
			if other := lv.keys[o.Key()].at[o.Seq]; len(other) > 0 {
				note = fmt.Sprintf("acknowledged at %d, which holds %v", o.Seq, other)
			} else if lv.seen(o.Key(), o.Value, 0) {
				note = fmt.Sprintf("acknowledged at %d, found at %v", o.Seq, lv.keys[o.Key()].where[o.Value])
			}
		}
		if len(v.Ops) < maxWindow {
			v.Ops = append(v.Ops, lv.op(op, note))
		}
	}
	if lost == 0 {
		return nil
	}
	v.Summary = fmt.Sprintf("%d of %d acknowledged appends lost", lost, acked)
	if lost > len(v.Ops) {
		v.Details = append(v.Details, fmt.Sprintf("the first %d are listed", len(v.Ops)))
	}
	return v
}

func duplicates(lv *logView) *fault.Violation {
	v := &fault.Violation{}
	var found finds
	for _, k := range slices.Sorted(maps.Keys(lv.keys)) {
		lk := lv.keys[k]
		for _, val := range slices.Sorted(maps.Keys(lk.where)) {
			if seqs := lk.where[val]; len(seqs) > 1 {
				found.add(func() string {
					return fmt.Sprintf("log %q: value %d at sequence numbers %v", k, val, slices.Sorted(slices.Values(seqs)))
				})
				lv.addOps(v, k, func(o LogOp) bool { return o.Value == val })
			}
		}
		for _, seq := range slices.Sorted(maps.Keys(lk.at)) {
			if vals := lk.at[seq]; len(vals) > 1 {
				found.add(func() string { return fmt.Sprintf("log %q: sequence number %d holds %v", k, seq, vals) })
				lv.addOps(v, k, func(o LogOp) bool { return o.Seq == seq })
			}
		}
	}
	return found.violation(v, "duplicates")
}

// finds collects what a stream check found: how many, and the first
// maxWindow described (a log with millions of them describes no more).
type finds struct {
	n     int
	first []string
}

func (f *finds) add(describe func() string) {
	if f.n++; len(f.first) < maxWindow {
		f.first = append(f.first, describe())
	}
}

// violation is v with what was found, or nil when nothing was.
func (f *finds) violation(v *fault.Violation, what string) *fault.Violation {
	if f.n == 0 {
		return nil
	}
	v.Summary = fmt.Sprintf("%d %s: %s", f.n, what, f.first[0])
	v.Details = f.first[1:]
	return v
}

// addOps adds to v the recorded OK operations on log k that match, up to
// maxWindow operations in all (the history is not scanned once v has them).
func (lv *logView) addOps(v *fault.Violation, k string, match func(LogOp) bool) {
	for _, op := range lv.h.Ops {
		if len(v.Ops) >= maxWindow {
			return
		}
		if op.Status == OK && op.Value.Key() == k && match(op.Value) {
			v.Ops = append(v.Ops, lv.op(op, ""))
		}
	}
}

// gaps works from the sequence numbers seen, never by walking the numbers
// between them: a log (or a broken reader) may answer any int64, and a span
// from 1 to 2⁶² is counted, not listed.
func gaps(lv *logView) *fault.Violation {
	v := &fault.Violation{}
	var found finds
	for _, k := range slices.Sorted(maps.Keys(lv.keys)) {
		lk := lv.keys[k]
		seqs := slices.Sorted(maps.Keys(lk.at))
		if len(seqs) == 0 {
			continue
		}
		var missing uint64 // at most 2⁶⁴ − 2: the seqs are distinct int64s
		var listed []int64
		for i := 1; i < len(seqs); i++ {
			missing += uint64(seqs[i]) - uint64(seqs[i-1]) - 1 // seqs[i] > seqs[i-1]: exact in uint64
			for s := seqs[i-1] + 1; s < seqs[i] && len(listed) < listedSeqs; s++ {
				listed = append(listed, s)
			}
		}
		if missing > 0 {
			lo, hi := seqs[0], seqs[len(seqs)-1]
			found.add(func() string {
				return fmt.Sprintf("log %q: %d sequence numbers missing between %d and %d: %s", k, missing, lo, hi, seqList(listed, missing))
			})
			lv.addOps(v, k, func(o LogOp) bool { return o.Seq > lo && o.Seq < hi && len(lk.at[o.Seq]) == 0 })
		}
		lv.skips(k, lk, seqs, v, &found)
	}
	return found.violation(v, "gaps")
}

// skips finds consumers of log k that skipped a sequence number holding a
// message: a client whose next read after seq a was at b > a+1 while
// something is known to be in between (seqs: the known ones, sorted).
func (lv *logView) skips(k string, lk *logKey, seqs []int64, v *fault.Violation, found *finds) {
	last := map[int32]Op[LogOp]{}
	for _, op := range lv.h.Ops {
		o := op.Value
		if op.Status != OK || o.Kind != LogRead || !o.Found || o.Key() != k {
			continue
		}
		prev, ok := last[op.Client]
		last[op.Client] = op
		if !ok || o.Seq <= prev.Value.Seq {
			continue
		}
		a, b := prev.Value.Seq, o.Seq
		from, _ := slices.BinarySearch(seqs, a+1) // a < b: a+1 does not overflow
		to, _ := slices.BinarySearch(seqs, b)
		if from >= to {
			continue // nothing known in between
		}
		skipped := seqList(seqs[from:min(to, from+listedSeqs)], uint64(to-from))
		found.add(func() string {
			return fmt.Sprintf("log %q: client %d read %d then %d, skipping %s", k, op.Client, a, b, skipped)
		})
		if len(v.Ops)+2 <= maxWindow {
			v.Ops = append(v.Ops, lv.op(prev, ""), lv.op(op, "skipped "+skipped))
		}
		lv.addOps(v, k, func(x LogOp) bool { return x.Kind == LogAppend && x.Seq > a && x.Seq < b && len(lk.at[x.Seq]) > 0 })
	}
}

// listedSeqs is how many sequence numbers a finding lists.
const listedSeqs = 10

// seqList prints the first of n sequence numbers (listed: up to
// listedSeqs of them), and how many there are when that is more.
func seqList(listed []int64, n uint64) string {
	var b strings.Builder
	for i, x := range listed[:min(len(listed), listedSeqs)] {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprint(&b, x)
	}
	if n > uint64(min(len(listed), listedSeqs)) {
		fmt.Fprintf(&b, " … (%d in all)", n)
	}
	return b.String()
}
