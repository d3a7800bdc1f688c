package history

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ares-arena/arena"
)

// maxWindow bounds the operations a violation lists: the failing window is
// usually a handful; a long one is cut, its length said.
const maxWindow = 20

// maxVisualized bounds the operations of a part drawn in porcupine's
// visualization (its page holds every operation).
const maxVisualized = 100_000

// violation explains the first part found not linearizable (parts[i]):
// porcupine is run again on it, computing its partial linearizations, with
// what is left of the budget.
func (c *linearizability[T, S]) violation(ctx context.Context, h History[T], parts []*part[T], verdicts []verdict, i int, deadline int64) error {
	p := parts[i]
	v := &arena.Violation{Summary: fmt.Sprintf("%s is not linearizable (%d operations, %d with unknown outcomes)", c.partName(p), len(p.ops), p.unknown)}
	if n := countOf(verdicts, illegal) - 1; n > 0 {
		v.Summary += fmt.Sprintf("; %d more parts are not either", n)
	}
	if n := len(verdicts) - countOf(verdicts, illegal) - countOf(verdicts, linearizable); n > 0 {
		v.Details = append(v.Details, fmt.Sprintf("%d parts undecided: the budget ran out", n))
	}
	left := time.Duration(deadline - wallNow())
	if left <= 0 || ctx.Err() != nil {
		v.Details = append(v.Details, "the budget ran out before the operations at fault could be found")
		return v
	}
	guard := &stepGuard{deadline: deadline, ctx: ctx}
	res, info := porcupine.CheckOperationsVerbose(c.model.porcupine(guard), p.ops, left)
	c.explain(v, h, p, info)
	if err := guard.err(); err != nil {
		v.Details = append(v.Details, "the search for the operations at fault stopped: "+err.Error())
	} else if res != porcupine.Illegal || guard.stopped.Load() {
		v.Details = append(v.Details, "the search for the longest linearizable prefix was cut short by the budget")
	}
	if len(p.ops) <= maxVisualized {
		if path, err := c.visualize(p.key, info); err != nil {
			v.Details = append(v.Details, "visualization not written: "+err.Error())
		} else if path != "" {
			v.Files = append(v.Files, path)
		}
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

// explain adds to v the longest linearizable prefix porcupine found in p,
// the state after it, and the smallest failing window it points to: the
// first operation to be answered that the prefix leaves out (no order
// explains it), the operations in flight with it, and the last one answered
// before it was invoked.
func (c *linearizability[T, S]) explain(v *arena.Violation, h History[T], p *part[T], info porcupine.LinearizationInfo) {
	var prefix []int // indexes into p.src, in linearization order
	for _, parts := range info.PartialLinearizations() {
		for _, lin := range parts {
			if len(lin) > len(prefix) {
				prefix = lin
			}
		}
	}
	// The ids porcupine numbers operations with are their positions in
	// p.ops, which are the indexes into p.src.
	in := make([]bool, len(p.src))
	state := c.model.Init()
	for _, id := range prefix {
		in[id] = true
		_, state = c.model.Step(state, p.src[id])
	}
	culprit := -1
	for j, op := range p.src {
		if !in[j] && op.Status == OK && (culprit < 0 || op.Return < p.src[culprit].Return) {
			culprit = j
		}
	}
	if culprit < 0 {
		v.Details = append(v.Details, fmt.Sprintf("longest linearizable prefix found: %d of %d operations", len(prefix), len(p.src)))
		return
	}
	bad := p.src[culprit]
	detail := fmt.Sprintf("longest linearizable prefix found: %d of %d operations", len(prefix), len(p.src))
	if len(prefix) > 0 {
		last := p.src[prefix[len(prefix)-1]]
		detail += fmt.Sprintf(", the last %s by client %d; the state then: %s", c.model.describe(last), last.Client, c.model.describeState(state))
	} else {
		detail += fmt.Sprintf("; the initial state: %s", c.model.describeState(state))
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
		case end < bad.Call && (before < 0 || end > p.src[before].Return):
			before = j
		}
	}
	text := fmt.Sprintf("no order explains %s by client %d, with %s in flight with it", c.model.describe(bad), bad.Client, count(len(window), "operation"))
	if before >= 0 {
		text += fmt.Sprintf(", after %s by client %d was answered", c.model.describe(p.src[before]), p.src[before].Client)
		window = append(window, before)
	}
	v.Details = append(v.Details, text)
	window = append(window, culprit)
	slices.SortFunc(window, func(a, b int) int { return cmp.Compare(p.src[a].Call, p.src[b].Call) })
	if len(window) > maxWindow {
		v.Details = append(v.Details, fmt.Sprintf("the window has %d operations; the %d listed are the first", len(window), maxWindow))
		window = window[:maxWindow]
	}
	for _, j := range window {
		op := p.src[j]
		text := c.model.describe(op)
		switch j {
		case culprit:
			text += " — no order explains it"
		case before:
			text += " — answered before it was invoked"
		}
		vo := arena.ViolationOp{Client: int(op.Client), Op: text, Call: h.Time(op.Call)}
		if op.Status == OK {
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
func (c *linearizability[T, S]) visualize(key string, info porcupine.LinearizationInfo) (string, error) {
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
	pm := c.model.porcupine(nil)
	pm.DescribeOperationMetadata = func(any) string { return "" }
	err = porcupine.Visualize(pm, info, f)
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
