package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/bound"
)

// The keys each mapping of a scenario file accepts, in documentation order.
var (
	scenarioKeys = []string{"name", "description", "tags", "config", "actions", "expect"}
	configKeys   = []string{"stop_on_error", "parallel_actions", "max_concurrent", "timeout", "warmup",
		"cooldown", "seed", "probe_interval", "recovery_deadline", "observe", "abort_when", "allow_unhealthy_start"}
	observeKeys = []string{"probe_interval", "probe_timeout", "settle_time", "stable_samples", "recovery_deadline"}
	abortKeys   = []string{"unhealthy_for", "checks_failed", "score_below"}
	stepKeys    = []string{"label", "delay", "action", "expect_success", "expect_failure", "depends_on"}
	actionKeys  = []string{"type", "target_id", "source_id", "metadata"}
	gateKeys    = []string{"min_grade", "min_score", "max_mttr", "all_recovered", "consistent"}
)

// maxScenarioNodes bounds the YAML nodes of a scenario after expanding
// aliases, and maxAliasNodes the part of them that aliases add, so that
// aliases cannot blow a small file up into a huge walk (or a huge list of
// problems, each repeated at every alias). Both are checked before the
// walk, on the node tree as parsed.
const (
	maxScenarioNodes = 200_000
	maxAliasNodes    = 50_000
)

// decoder walks a YAML node tree into a Scenario. It checks every key and
// the type of every value itself (yaml.v3's KnownFields reports neither
// columns nor field paths, and stops at the first problem), and records
// where each field is for the errors of validation.
type scenarioDecoder struct {
	src  *scenarioSource
	errs Errors
	seen map[problemKey]bool
}

var yamlErrLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// decodeScenario parses data into a Scenario; the scenario is nil when the
// data is not a YAML mapping at all.
func decodeScenario(data []byte, file string) (sc *Scenario, errs Errors) {
	d := &scenarioDecoder{src: &scenarioSource{file: file, pos: map[string]filePos{}, bad: map[string]bool{}}, seen: map[problemKey]bool{}}
	root, err := parseScenarioYAML(data)
	if err != nil {
		e := &Error{File: file, Msg: err.Error()}
		if m := yamlErrLine.FindStringSubmatch(err.Error()); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Msg = "invalid YAML: " + m[2]
		} else {
			e.Msg = "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")
		}
		return nil, Errors{e}
	}
	if root == nil {
		return nil, Errors{{File: file, Msg: "empty (want a scenario: a mapping with name and actions)"}}
	}
	if msg := checkExpansion(root); msg != "" {
		return nil, Errors{{File: file, Line: root.Line, Column: root.Column, Msg: msg}}
	}
	sc = &Scenario{src: d.src}
	d.src.pos[""] = filePos{root.Line, root.Column}
	if !d.mapping(root, "", scenarioKeys, func(key string, v *yaml.Node, path string) {
		switch key {
		case "name":
			sc.Name = d.str(v, path)
		case "description":
			sc.Description = d.str(v, path)
		case "tags":
			sc.Tags = d.strs(v, path)
		case "config":
			d.config(v, path, &sc.Config)
		case "actions":
			sc.Actions = d.steps(v, path)
		case "expect":
			d.gate(v, path, &sc.Expect)
		}
	}) {
		return nil, d.errs
	}
	return sc, d.errs
}

// parseScenarioYAML returns the root node of the only document in data, nil for an
// empty one. yaml.v3 is trusted not to panic, but a parser panic must not
// take a server or a fuzzer down with it.
func parseScenarioYAML(data []byte) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("yaml: parser panicked: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, fmt.Errorf("yaml: line %d: a second YAML document (a scenario file holds one)", next.Line)
	case !errors.Is(err, io.EOF):
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

func (d *scenarioDecoder) errorf(n *yaml.Node, path, format string, args ...any) {
	e := &Error{File: d.src.file, Path: bound.Cut(path, bound.MaxText), Msg: bound.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	d.src.bad[path] = true
	// A node repeated by aliases is reported once (as tidy would), so
	// that an alias bomb does not grow the list.
	if k := e.key(); !d.seen[k] {
		d.seen[k] = true
		d.errs = append(d.errs, e)
	}
}

// visit follows an alias. It never returns nil: checkExpansion has bounded
// the walk before it began.
func (d *scenarioDecoder) visit(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// checkExpansion counts the nodes of the tree, and the bytes of its keys and
// values, with aliases expanded (each node's size once, so the count is
// linear in the file), and says what is wrong when they are too many, or
// when an alias contains itself. A value an alias repeats counts every
// time: it is printed every time, in reports and in errors.
func checkExpansion(root *yaml.Node) string {
	type size struct{ nodes, text int }
	inProgress := size{-1, -1}
	sizes := map[*yaml.Node]size{}
	var measure func(n *yaml.Node) (size, bool)
	measure = func(n *yaml.Node) (size, bool) {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			s, ok := measure(n.Alias)
			return size{s.nodes + 1, s.text}, ok
		}
		switch s, seen := sizes[n]; {
		case seen && s == inProgress:
			return size{}, false
		case seen:
			return s, true
		}
		sizes[n] = inProgress
		total := size{1, len(n.Value)}
		for _, c := range n.Content {
			s, ok := measure(c)
			if !ok {
				return size{}, false
			}
			// Saturate: no overflow, however deep the aliases go.
			total = size{min(total.nodes+s.nodes, maxScenarioNodes+1), min(total.text+s.text, MaxExpanded+1)}
		}
		sizes[n] = total
		return total, true
	}
	expanded, ok := measure(root)
	switch {
	case !ok:
		return "an alias contains itself"
	case expanded.nodes > maxScenarioNodes:
		return fmt.Sprintf("more than %d YAML nodes (after expanding aliases)", maxScenarioNodes)
	case expanded.nodes-len(sizes) > maxAliasNodes:
		return fmt.Sprintf("aliases add more than %d YAML nodes", maxAliasNodes)
	case expanded.text > MaxExpanded:
		return fmt.Sprintf("more than %d bytes of text after expanding aliases (aliases may share a value, not multiply it)", MaxExpanded)
	}
	return ""
}

// mapping walks the keys of a mapping, calling set for each known key with
// its value and path. Unknown and duplicate keys are errors. It reports
// whether n was a mapping.
func (d *scenarioDecoder) mapping(n *yaml.Node, path string, keys []string, set func(key string, v *yaml.Node, path string)) bool {
	n = d.visit(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping, got %s", describeNode(n))
		return false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := d.visit(n.Content[i]), n.Content[i+1]
		key, ok := d.key(k, path)
		if !ok {
			continue
		}
		p := pathKey(path, key)
		switch {
		case seen[key]:
			d.errorf(k, p, "duplicate key")
		case keys != nil && !slices.Contains(keys, key):
			d.errorf(k, p, "unknown key (want %s)", strings.Join(keys, ", "))
		default:
			seen[key] = true
			d.src.pos[p] = filePos{k.Line, k.Column}
			set(key, v, p)
		}
	}
	return true
}

func (d *scenarioDecoder) key(k *yaml.Node, path string) (string, bool) {
	switch {
	case k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge":
		d.errorf(k, path, "merge keys (<<) are not supported")
	case k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str":
		d.errorf(k, path, "want a string key, got %s", describeNode(k))
	default:
		return k.Value, true
	}
	return "", false
}

func (d *scenarioDecoder) scalar(n *yaml.Node, path, tag, want string) (*yaml.Node, bool) {
	n = d.visit(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != tag {
		d.errorf(n, path, "want %s, got %s", want, describeNode(n))
		return nil, false
	}
	return n, true
}

func (d *scenarioDecoder) str(n *yaml.Node, path string) string {
	if n, ok := d.scalar(n, path, "!!str", "a string"); ok {
		return n.Value
	}
	return ""
}

func (d *scenarioDecoder) boolean(n *yaml.Node, path string) bool {
	var b bool
	if n, ok := d.scalar(n, path, "!!bool", "true or false"); ok && n.Decode(&b) != nil {
		d.errorf(n, path, "want true or false, got %q", n.Value)
	}
	return b
}

func (d *scenarioDecoder) integer(n *yaml.Node, path string) int {
	var i int
	if n, ok := d.scalar(n, path, "!!int", "an integer"); ok && n.Decode(&i) != nil {
		d.errorf(n, path, "integer %s out of range", n.Value)
	}
	return i
}

func (d *scenarioDecoder) seed(n *yaml.Node, path string) uint64 {
	var u uint64
	if n, ok := d.scalar(n, path, "!!int", "a non-negative integer"); ok && n.Decode(&u) != nil {
		d.errorf(n, path, "want a non-negative integer below 2^64, got %s", n.Value)
	}
	return u
}

func (d *scenarioDecoder) number(n *yaml.Node, path string) *float64 {
	n = d.visit(n)
	var f float64
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") || n.Decode(&f) != nil {
		d.errorf(n, path, "want a number, got %s", describeNode(n))
		return nil
	}
	return &f
}

// duration reads a Go duration string or a number of seconds. Negative
// durations decode; validation rejects them with the field's name.
func (d *scenarioDecoder) duration(n *yaml.Node, path string) clock.Duration {
	n = d.visit(n)
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, path, "want a duration such as \"1.5s\" or a number of seconds, got %s", describeNode(n))
		return 0
	}
	v, err := clock.ParseDuration(scalarValue(n))
	if err != nil {
		d.errorf(n, path, "%v", err)
		return 0
	}
	return clock.Duration(v)
}

// scalarValue decodes a scalar the way a map[string]any would hold it,
// except that tags without a Go counterpart (timestamps, binary) stay text.
func scalarValue(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool", "!!int", "!!float":
		var v any
		if n.Decode(&v) == nil {
			return v
		}
	}
	return n.Value
}

func (d *scenarioDecoder) strs(n *yaml.Node, path string) []string {
	n = d.visit(n)
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want a sequence of strings, got %s", describeNode(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		p := pathIndex(path, i)
		d.src.pos[p] = filePos{item.Line, item.Column}
		out = append(out, d.str(item, p))
	}
	return out
}

func (d *scenarioDecoder) config(n *yaml.Node, path string, c *Config) {
	d.mapping(n, path, configKeys, func(key string, v *yaml.Node, p string) {
		switch key {
		case "stop_on_error":
			c.StopOnError = d.boolean(v, p)
		case "parallel_actions":
			c.ParallelActions = d.boolean(v, p)
		case "max_concurrent":
			c.MaxConcurrent = d.integer(v, p)
		case "timeout":
			c.Timeout = d.duration(v, p)
		case "warmup":
			c.Warmup = d.duration(v, p)
		case "cooldown":
			c.Cooldown = d.duration(v, p)
		case "seed":
			c.Seed = d.seed(v, p)
		case "probe_interval":
			c.ProbeInterval = d.duration(v, p)
		case "recovery_deadline":
			c.RecoveryDeadline = d.duration(v, p)
		case "observe":
			c.Observe = &Observe{}
			d.observe(v, p, c.Observe)
		case "abort_when":
			d.abortWhen(v, p, &c.AbortWhen)
		case "allow_unhealthy_start":
			c.AllowUnhealthyStart = d.boolean(v, p)
		}
	})
}

func (d *scenarioDecoder) abortWhen(n *yaml.Node, path string, a *engine.AbortWhen) {
	d.mapping(n, path, abortKeys, func(key string, v *yaml.Node, p string) {
		switch key {
		case "unhealthy_for":
			a.UnhealthyFor = d.duration(v, p)
		case "checks_failed":
			a.ChecksFailed = d.strs(v, p)
		case "score_below":
			if x := d.number(v, p); x != nil {
				a.ScoreBelow = *x
			}
		}
	})
}

func (d *scenarioDecoder) observe(n *yaml.Node, path string, o *Observe) {
	d.mapping(n, path, observeKeys, func(key string, v *yaml.Node, p string) {
		switch key {
		case "probe_interval":
			o.ProbeInterval = d.duration(v, p)
		case "probe_timeout":
			o.ProbeTimeout = d.duration(v, p)
		case "settle_time":
			o.SettleTime = d.duration(v, p)
		case "stable_samples":
			o.StableSamples = d.integer(v, p)
		case "recovery_deadline":
			o.RecoveryDeadline = d.duration(v, p)
		}
	})
}

func (d *scenarioDecoder) steps(n *yaml.Node, path string) []Step {
	n = d.visit(n)
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want a sequence of steps, got %s", describeNode(n))
		return nil
	}
	if len(n.Content) > MaxSteps {
		d.errorf(n, path, "%d steps (at most %d)", len(n.Content), MaxSteps)
		return nil
	}
	steps := make([]Step, len(n.Content))
	for i, item := range n.Content {
		p := pathIndex(path, i)
		d.src.pos[p] = filePos{item.Line, item.Column}
		st := &steps[i]
		d.mapping(item, p, stepKeys, func(key string, v *yaml.Node, p string) {
			switch key {
			case "label":
				st.Label = d.str(v, p)
			case "delay":
				st.Delay = d.duration(v, p)
			case "action":
				d.action(v, p, &st.Action)
			case "expect_success":
				st.ExpectSuccess = d.boolean(v, p)
			case "expect_failure":
				st.ExpectFailure = d.boolean(v, p)
			case "depends_on":
				st.DependsOn = d.strs(v, p)
			}
		})
	}
	return steps
}

func (d *scenarioDecoder) action(n *yaml.Node, path string, a *fault.Action) {
	d.mapping(n, path, actionKeys, func(key string, v *yaml.Node, p string) {
		switch key {
		case "type":
			a.Type = fault.Type(d.str(v, p))
		case "target_id":
			a.TargetID = d.str(v, p)
		case "source_id":
			a.SourceID = d.str(v, p)
		case "metadata":
			a.Metadata = d.metadata(v, p)
		}
	})
}

// metadata reads a mapping of scalars; which keys and values a type accepts
// is Action.Validate's business.
func (d *scenarioDecoder) metadata(n *yaml.Node, path string) map[string]any {
	m := map[string]any{}
	d.mapping(n, path, nil, func(key string, v *yaml.Node, p string) {
		v = d.visit(v)
		if v.Kind != yaml.ScalarNode {
			d.errorf(v, p, "want a scalar value, got %s", describeNode(v))
			return
		}
		m[key] = scalarValue(v)
	})
	return m
}

func (d *scenarioDecoder) gate(n *yaml.Node, path string, g *Gate) {
	d.mapping(n, path, gateKeys, func(key string, v *yaml.Node, p string) {
		switch key {
		case "min_grade":
			if s, ok := d.scalar(v, p, "!!str", "a grade (A+, A, B, C, D or F)"); ok {
				grade, err := engine.ParseGrade(s.Value)
				if err != nil {
					d.errorf(s, p, "%v", err)
				}
				g.MinGrade = grade
			}
		case "min_score":
			g.MinScore = d.number(v, p)
		case "max_mttr":
			if mttr := d.duration(v, p); !d.src.bad[p] {
				g.MaxMTTR = &mttr
			}
		case "all_recovered":
			g.AllRecovered = d.boolean(v, p)
		case "consistent":
			g.Consistent = d.boolean(v, p)
		}
	})
}

// describe names a node's kind for error messages.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.DocumentNode:
		return "a document"
	}
	switch n.ShortTag() {
	case "!!str":
		return "the string " + bound.Quote(n.Value)
	case "!!int":
		return "the integer " + n.Value
	case "!!float":
		return "the number " + n.Value
	case "!!bool":
		return n.Value
	case "!!null":
		return "null"
	}
	return bound.Cut(n.ShortTag(), bound.MaxQuoted) + " " + bound.Quote(n.Value)
}
