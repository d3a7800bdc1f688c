package history

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ares-arena/arena"
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
func NoLostWrites(name string, rec *Recorder[LogOp], read Reader) arena.Check {
	return streamCheck(name, rec, read, lostWrites)
}

// NoDuplicates returns a check that nothing is in the log twice: no value at
// two sequence numbers (an append applied twice, a retried publish the log
// did not deduplicate), and no sequence number with two values.
func NoDuplicates(name string, rec *Recorder[LogOp], read Reader) arena.Check {
	return streamCheck(name, rec, read, duplicates)
}

// NoGaps returns a check that sequence numbers are gapless: between the
// lowest and the highest seen (consumed or readable) every one holds a
// message, and no consumer (a client's reads, in order) skipped one that
// holds a message.
func NoGaps(name string, rec *Recorder[LogOp], read Reader) arena.Check {
	return streamCheck(name, rec, read, gaps)
}

func streamCheck(name string, rec *Recorder[LogOp], read Reader, find func(*logView) *arena.Violation) arena.Check {
	if rec == nil {
		panic("arena: history: " + name + ": nil recorder")
	}
	return arena.Check{Name: name, Run: func(ctx context.Context) error {
		lv := &logView{h: rec.History(), keys: map[string]*logKey{}}
		var msgs []Message
		if read != nil {
			var err error
			if msgs, err = read(ctx); err != nil {
				return fmt.Errorf("read the log: %w", err)
			}
		}
		if !lv.index(msgs) {
			return fmt.Errorf("%w: nothing read from the log yet", arena.ErrNotApplicable)
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
	readable map[int64]bool    // seqs the reader found
}

func (lv *logView) key(k string) *logKey {
	lk := lv.keys[k]
	if lk == nil {
		lk = &logKey{at: map[int64][]int64{}, where: map[int64][]int64{}, readable: map[int64]bool{}}
		lv.keys[k] = lk
	}
	return lk
}

func (lk *logKey) saw(seq, v int64) {
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
		for _, vals := range lk.at {
			if slices.Contains(vals, v) {
				return true
			}
		}
		return false
	}
	return slices.Contains(lk.at[seq], v)
}

// op makes a violation's operation of a recorded one.
func (lv *logView) op(op Op[LogOp], note string) arena.ViolationOp {
	vo := arena.ViolationOp{Client: int(op.Client), Op: op.Value.String(), Call: lv.h.Time(op.Call)}
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

func lostWrites(lv *logView) *arena.Violation {
	v := &arena.Violation{}
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

func duplicates(lv *logView) *arena.Violation {
	v := &arena.Violation{}
	var found []string
	for _, k := range slices.Sorted(maps.Keys(lv.keys)) {
		lk := lv.keys[k]
		for _, val := range slices.Sorted(maps.Keys(lk.where)) {
			if seqs := lk.where[val]; len(seqs) > 1 {
				found = append(found, fmt.Sprintf("log %q: value %d at sequence numbers %v", k, val, slices.Sorted(slices.Values(seqs))))
				v.Ops = append(v.Ops, lv.opsOf(k, func(o LogOp) bool { return o.Value == val })...)
			}
		}
		for _, seq := range slices.Sorted(maps.Keys(lk.at)) {
			if vals := lk.at[seq]; len(vals) > 1 {
				found = append(found, fmt.Sprintf("log %q: sequence number %d holds %v", k, seq, vals))
				v.Ops = append(v.Ops, lv.opsOf(k, func(o LogOp) bool { return o.Seq == seq })...)
			}
		}
	}
	if len(found) == 0 {
		return nil
	}
	v.Summary = fmt.Sprintf("%d duplicates: %s", len(found), found[0])
	v.Details = found[1:min(len(found), maxWindow)]
	v.Ops = v.Ops[:min(len(v.Ops), maxWindow)]
	return v
}

// opsOf returns the recorded OK operations on log k that match.
func (lv *logView) opsOf(k string, match func(LogOp) bool) []arena.ViolationOp {
	var out []arena.ViolationOp
	for _, op := range lv.h.Ops {
		if op.Status == OK && op.Value.Key() == k && match(op.Value) && len(out) < maxWindow {
			out = append(out, lv.op(op, ""))
		}
	}
	return out
}

func gaps(lv *logView) *arena.Violation {
	v := &arena.Violation{}
	var found []string
	for _, k := range slices.Sorted(maps.Keys(lv.keys)) {
		lk := lv.keys[k]
		seqs := slices.Sorted(maps.Keys(lk.at))
		if len(seqs) == 0 {
			continue
		}
		var missing []int64
		for i := 1; i < len(seqs); i++ {
			for s := seqs[i-1] + 1; s < seqs[i]; s++ {
				missing = append(missing, s)
			}
		}
		if len(missing) > 0 {
			found = append(found, fmt.Sprintf("log %q: %d sequence numbers missing between %d and %d: %s", k, len(missing), seqs[0], seqs[len(seqs)-1], seqList(missing)))
			v.Ops = append(v.Ops, lv.opsOf(k, func(o LogOp) bool { return slices.Contains(missing, o.Seq) })...)
		}
		found = append(found, lv.skips(k, lk, v)...)
	}
	if len(found) == 0 {
		return nil
	}
	v.Summary = fmt.Sprintf("%d gaps: %s", len(found), found[0])
	v.Details = found[1:min(len(found), maxWindow)]
	v.Ops = v.Ops[:min(len(v.Ops), maxWindow)]
	return v
}

// skips finds consumers of log k that skipped a sequence number holding a
// message: a client whose next read after seq a was at b > a+1 while
// something is known to be in between.
func (lv *logView) skips(k string, lk *logKey, v *arena.Violation) []string {
	var found []string
	last := map[int32]Op[LogOp]{}
	for _, op := range lv.h.Ops {
		o := op.Value
		if op.Status != OK || o.Kind != LogRead || !o.Found || o.Key() != k {
			continue
		}
		prev, ok := last[op.Client]
		last[op.Client] = op
		if !ok || o.Seq <= prev.Value.Seq+1 {
			continue
		}
		var skipped []int64
		for s := prev.Value.Seq + 1; s < o.Seq; s++ {
			if len(lk.at[s]) > 0 {
				skipped = append(skipped, s)
			}
		}
		if len(skipped) > 0 {
			found = append(found, fmt.Sprintf("log %q: client %d read %d then %d, skipping %s", k, op.Client, prev.Value.Seq, o.Seq, seqList(skipped)))
			v.Ops = append(v.Ops, lv.op(prev, ""), lv.op(op, "skipped "+seqList(skipped)))
			v.Ops = append(v.Ops, lv.opsOf(k, func(x LogOp) bool { return x.Kind == LogAppend && slices.Contains(skipped, x.Seq) })...)
		}
	}
	return found
}

// seqList prints sequence numbers, the first ten.
func seqList(s []int64) string {
	var b strings.Builder
	for i, x := range s {
		if i == 10 {
			fmt.Fprintf(&b, " … (%d in all)", len(s))
			break
		}
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprint(&b, x)
	}
	return b.String()
}
