package history

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// maxWindow bounds the operations a violation lists: the failing window is
// usually a handful; a long one is cut, its length said.
const maxWindow = 20

// maxVisualized bounds the operations of a part drawn in porcupine's
// visualization (its page holds every operation).
const maxVisualized = 100_000

// visualContext is how many operations of a part's sequential prefix its
// visualization draws before the rest (or before the operation at fault,
// when it is in the prefix).
const visualContext = 10

// visualizeBytes is about what porcupine's visualization of a part of ops
// operations, steps in all its partial linearizations, allocates while it
// is drawn (records, descriptions, maps and their JSON, held twice): about
// 1,600 bytes an operation and 800 a step, as measured by
// TestVisualizeBytesCoversWhatItAllocates.
func visualizeBytes(ops, steps int) int64 {
	return int64(ops)*1600 + int64(steps)*800
}

// violation explains the first part found not linearizable (parts[i]):
// porcupine is run again on it, computing its partial linearizations,
// within what is left of the budget. The model's code panicking while it is
// explained fails the check with the panic instead.
func (c *linearizability[T, S]) violation(h History[T], parts []*part[T], verdicts []verdict, i int, b *budget) error {
	p := parts[i]
	v := &fault.Violation{Summary: fmt.Sprintf("%s is not linearizable (%d operations, %d with unknown outcomes)", c.partName(p), len(p.src), p.unknown)}
	if c.opts.horizon > 0 && p.unknown > 0 {
		v.Summary = strings.TrimSuffix(v.Summary, ")") + fmt.Sprintf("; WithUnknownHorizon: an operation given up on took effect within %s of that, or never)", c.opts.horizon)
	}
	if n := countOf(verdicts, illegal) - 1; n > 0 {
		v.Summary += fmt.Sprintf("; %d more parts are not either", n)
	}
	if n := len(verdicts) - countOf(verdicts, illegal) - countOf(verdicts, linearizable); n > 0 {
		v.Details = append(v.Details, fmt.Sprintf("%d parts undecided: the budget ran out", n))
	}
	left := b.deadline.Sub(clock.Wall())
	if left <= 0 || b.ctx.Err() != nil {
		v.Details = append(v.Details, "the budget ran out before the operations at fault could be found")
		return v
	}
	g := &guard{b: b}
	defer g.release()
	// Porcupine searches what follows the part's sequential prefix (see
	// replay), or, when the prefix has an operation no order explains,
	// that operation; from a few operations before, to draw them.
	k, _, failed := c.replay(p, g, len(p.src))
	from, to := max(0, k-visualContext), len(p.src)
	if failed {
		to = k + 1
	}
	_, state, _ := c.replay(p, g, from)
	if err := g.err(); err != nil {
		return fmt.Errorf("%s: %w", c.partName(p), err)
	}
	g.stateBytes = stateBytes[S](to - from)
	if !g.take(searchBytesPerOp * int64(to-from)) {
		v.Details = append(v.Details, "the memory budget ran out before the operations at fault could be found")
		return v
	}
	res, info := porcupine.CheckOperationsVerbose(c.model.porcupine(g, func() S { return state }), p.operations(from, to, end(h)), left)
	if err := g.err(); err != nil {
		return fmt.Errorf("%s: %w", c.partName(p), err)
	}
	var longest []int // ids porcupine gave the operations of its search, in linearization order
	steps := 0        // in all partial linearizations
	for _, parts := range info.PartialLinearizations() {
		for _, lin := range parts {
			steps += len(lin)
			// Porcupine lists them in map order: of two as long, the
			// first in id order, so that a violation reads the same each
			// time it is explained.
			if len(lin) > len(longest) || len(lin) == len(longest) && slices.Compare(lin, longest) < 0 {
				longest = lin
			}
		}
	}
	prefix := make([]int, 0, from+len(longest)) // indexes into p.src
	for j := range from {
		prefix = append(prefix, j)
	}
	for _, id := range longest {
		prefix = append(prefix, from+id)
	}
	g.take(8 * int64(steps)) // held already: if it does not fit, the visualization will not
	c.explain(v, h, p, prefix, g)
	if err := g.err(); err != nil {
		return fmt.Errorf("%s: %w", c.partName(p), err)
	}
	switch g.stopped() {
	case stoppedMemory:
		v.Details = append(v.Details, fmt.Sprintf("the search for the longest linearizable prefix was cut short by the memory budget (%s)", bytesString(b.memory)))
	case stoppedTime:
		v.Details = append(v.Details, "the search for the longest linearizable prefix was cut short by the budget")
	default:
		if res != porcupine.Illegal {
			v.Details = append(v.Details, "the search for the longest linearizable prefix was cut short by the budget")
		}
	}
	if to-from > maxVisualized {
		return v
	}
	if n := visualizeBytes(to-from, steps); !g.take(n) {
		v.Details = append(v.Details, fmt.Sprintf("visualization not written: it would take about %s, more than is left of the memory budget (%s)", bytesString(n), bytesString(b.memory)))
		return v
	}
	vg := &guard{} // no budget: a step that fails makes porcupine's drawing panic
	path, err := c.visualize(p.key, info, c.model.porcupine(vg, func() S { return state }))
	if perr := vg.err(); perr != nil {
		return fmt.Errorf("%s: %w", c.partName(p), perr)
	}
	if err != nil {
		v.Details = append(v.Details, "visualization not written: "+err.Error())
	} else if path != "" {
		v.Files = append(v.Files, path)
	}
	return v
}

// count says "no operation", "1 operation", "3 operations".
func count(n int, noun string) string {
	switch n {
	case 0:
		return "no " + noun
	case 1:
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func countOf(vs []verdict, want verdict) int {
	n := 0
	for _, v := range vs {
		if v == want {
			n++
		}
	}
	return n
}

// explain adds to v the longest linearizable prefix porcupine found in p
// (indexes into p.src, in order), the state after it, and the smallest
// failing window it points to: the first operation to be answered that the
// prefix leaves out (no order explains it), the operations in flight with
// it, and the last one answered before it was invoked.
func (c *linearizability[T, S]) explain(v *fault.Violation, h History[T], p *part[T], prefix []int, g *guard) {
	in := make([]bool, len(p.src))
	state := c.model.init(g)
	for _, id := range prefix {
		in[id] = true
		_, state = c.model.step(g, state, *p.src[id])
	}
	culprit := -1
	for j, op := range p.src {
		// One closed at its horizon (op.maybe) is explained by not having
		// happened: never the culprit.
		if !in[j] && op.Status == OK && !op.maybe && (culprit < 0 || op.Return < p.src[culprit].Return) {
			culprit = j
		}
	}
	if culprit < 0 {
		v.Details = append(v.Details, fmt.Sprintf("longest linearizable prefix found: %d of %d operations", len(prefix), len(p.src)))
		return
	}
	bad := *p.src[culprit]
	detail := fmt.Sprintf("longest linearizable prefix found: %d of %d operations", len(prefix), len(p.src))
	if len(prefix) > 0 {
		last := *p.src[prefix[len(prefix)-1]]
		detail += fmt.Sprintf(", the last %s by client %d; the state then: %s", c.model.describe(g, last), last.Client, c.model.describeState(g, state))
	} else {
		detail += fmt.Sprintf("; the initial state: %s", c.model.describeState(g, state))
	}
	v.Details = append(v.Details, detail)
	// The window: the culprit, the operations in flight with it, and the
	// last one answered before it was invoked (what it had to see at least).
	var window []int
	before := -1
	for j, op := range p.src {
		end := op.Return
		if op.Status != OK {
			end = h.Now
		}
		switch {
		case j == culprit:
		case op.Call <= bad.Return && end >= bad.Call:
			window = append(window, j)
		case end < bad.Call && !op.maybe && (before < 0 || end > p.src[before].Return):
			before = j
		}
	}
	text := fmt.Sprintf("no order explains %s by client %d, with %s in flight with it", c.model.describe(g, bad), bad.Client, count(len(window), "operation"))
	if before >= 0 {
		text += fmt.Sprintf(", after %s by client %d was answered", c.model.describe(g, *p.src[before]), p.src[before].Client)
		window = append(window, before)
	}
	v.Details = append(v.Details, text)
	window = append(window, culprit)
	slices.SortFunc(window, func(a, b int) int { return cmp.Compare(p.src[a].Call, p.src[b].Call) })
	if len(window) > maxWindow {
		v.Details = append(v.Details, fmt.Sprintf("the window has %d operations; the %d listed are the first", len(window), maxWindow))
		window = window[:maxWindow]
	}
	// The one answered before the culprit names the culprit: "it" would
	// read as itself, beside the report's "(answered 1ns later)".
	for _, j := range window {
		op := p.src[j]
		text := c.model.describe(g, *op)
		switch j {
		case culprit:
			text += " — no order explains it"
		case before:
			text += fmt.Sprintf(" — answered before client %d invoked %s", bad.Client, c.model.describe(g, bad))
		}
		vo := fault.ViolationOp{Client: int(op.Client), Op: text, Call: h.Time(op.Call)}
		if op.Status == OK && !op.maybe {
			vo.Return = h.Time(op.Return)
		}
		v.Ops = append(v.Ops, vo)
	}
}

// visualize writes porcupine's visualization of info, part key's, to the
// report directory and returns its path ("" when there is no directory).
//
// A check runs after every recovery, and once a part is not linearizable
// every later run finds it so again: each part keeps one file, which a
// later violation rewrites (the history only grows, so the newer picture
// holds the older), so that a long run does not fill the disk with copies.
// A new file is written aside and renamed over the old one, so a reader
// never sees half of it.
func (c *linearizability[T, S]) visualize(key string, info porcupine.LinearizationInfo, pm porcupine.Model) (string, error) {
	dir := c.opts.dir()
	if dir == "" {
		return "", nil
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := os.CreateTemp(dir, fileName(c.name)+"-*.html")
	if err != nil {
		return "", err
	}
	pm.DescribeOperationMetadata = func(any) string { return "" }
	err = draw(pm, info, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	path := f.Name()
	if prev, ok := c.files[key]; ok && filepath.Dir(prev) == dir {
		if err := os.Rename(path, prev); err != nil {
			os.Remove(path)
			return "", err
		}
		return prev, nil
	}
	if c.files == nil {
		c.files = map[string]string{}
	}
	c.files[key] = path
	return path, nil
}

// draw is porcupine.Visualize, which panics when a step of a linearization
// it was given fails: the model's Step is not a function of its arguments,
// or it panicked (the guard's error says so then).
func draw(pm porcupine.Model, info porcupine.LinearizationInfo, w io.Writer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("porcupine: %v", p)
		}
	}()
	return porcupine.Visualize(pm, info, w)
}

// fileName makes a check's name part of a file name: letters, digits, '-'
// and '_' kept, anything else '_', at most 60 bytes.
func fileName(name string) string {
	b := []byte(name)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_') {
			b[i] = '_'
		}
	}
	s := strings.Trim(string(b[:min(len(b), 60)]), "_")
	if s == "" {
		return "linearizability"
	}
	return s
}
