package fault

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gopkg.in/yaml.v3"

	"github.com/ares-arena/arena/clock"
)

// defaultParams are the Params of an action whose metadata leaves everything out.
var defaultParams = Params{
	Duration:  0,
	Delay:     5 * time.Second,
	Timeout:   5 * time.Second,
	ErrorType: LLMRateLimit,
}

// ignoreValues leaves Params.Values (tested by the fault spec tests) out of
// comparisons of the typed fields.
var ignoreValues = cmpopts.IgnoreFields(Params{}, "Values")

// withParams returns defaultParams changed by f.
func withParams(f func(*Params)) Params {
	p := defaultParams
	f(&p)
	return p
}

func TestActionValidateAcceptsEveryType(t *testing.T) {
	tests := []struct {
		action Action
		want   Params
	}{
		{Action{Type: KillLeader}, defaultParams},
		{Action{Type: KillOrchestrator}, defaultParams},
		{Action{Type: KillAgent, TargetID: "worker-1"}, defaultParams},
		{
			Action{Type: PauseAgent, TargetID: "random", Metadata: map[string]any{"duration": "2s"}},
			withParams(func(p *Params) { p.Duration = 2 * time.Second }),
		},
		{Action{Type: ResumeAgent, TargetID: "type:worker"}, defaultParams},
		{
			Action{Type: SlowAgent, TargetID: "worker-2", Metadata: map[string]any{"delay": "250ms", "duration": 3}},
			withParams(func(p *Params) { p.Delay, p.Duration = 250*time.Millisecond, 3*time.Second }),
		},
		{
			Action{Type: NetworkPartition, TargetID: "worker-3", Metadata: map[string]any{"duration": 1.5}},
			withParams(func(p *Params) { p.Duration = 1500 * time.Millisecond }),
		},
		{
			Action{Type: ToolTimeout, TargetID: "worker-1", Metadata: map[string]any{"timeout": "2s"}},
			withParams(func(p *Params) { p.Timeout = 2 * time.Second }),
		},
		{Action{Type: MemoryCorrupt, TargetID: "worker-1"}, defaultParams},
		{
			Action{Type: MCPDisconnect, TargetID: "type:tooling", Metadata: map[string]any{"duration": "1m"}},
			withParams(func(p *Params) { p.Duration = time.Minute }),
		},
		{
			Action{Type: LLMFailure, TargetID: "worker-1", Metadata: map[string]any{"error_type": "overloaded", "duration": 10}},
			withParams(func(p *Params) { p.ErrorType, p.Duration = LLMOverloaded, 10*time.Second }),
		},
		{Action{Type: RemoveNode, TargetID: "node-a"}, defaultParams},
		{Action{Type: RemoveEdge, SourceID: "node-a", TargetID: "node-b"}, defaultParams},
		{
			Action{Type: NetworkLatency, TargetID: "worker-1", Metadata: map[string]any{"latency": "150ms", "jitter": "20ms", "direction": "outbound", "peer": "leader-0", "duration": "4s"}},
			withParams(func(p *Params) { p.Duration = 4 * time.Second }),
		},
		{
			Action{Type: NetworkBandwidth, TargetID: "worker-1", Metadata: map[string]any{"rate": 250000, "duration": "4s"}},
			withParams(func(p *Params) { p.Duration = 4 * time.Second }),
		},
		{Action{Type: ConnectionReset, TargetID: "type:worker", Metadata: map[string]any{"after": "100ms"}}, defaultParams},
	}
	seen := map[Type]bool{}
	for _, tt := range tests {
		seen[tt.action.Type] = true
		if err := tt.action.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", tt.action, err)
		}
		got, err := tt.action.Params()
		if err != nil {
			t.Errorf("Params(%+v) error = %v, want nil", tt.action, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, ignoreValues); diff != "" {
			t.Errorf("Params(%+v) mismatch (-want +got):\n%s", tt.action, diff)
		}
	}
	// The types the table leaves out validate with a target of their rule
	// and their defaults: their metadata is all optional.
	for _, spec := range Specs() {
		if seen[spec.Type] {
			continue
		}
		a := Action{Type: spec.Type, TargetID: map[TargetRule]string{TargetAgent: "worker-1", TargetNode: "node-a", TargetEdge: "node-b"}[spec.Target]}
		if spec.Target == TargetEdge {
			a.SourceID = "node-a"
		}
		if err := a.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", a, err)
		}
		if got, err := a.Params(); err != nil || !cmp.Equal(defaultParams, got, ignoreValues) {
			t.Errorf("Params(%+v) = %+v, %v; want the defaults", a, got, err)
		}
	}
}

func TestActionParamsDefaults(t *testing.T) {
	// Every type without metadata gets the documented defaults, and the
	// defaults are the exported constants.
	if DefaultSlowDelay != 5*time.Second || DefaultToolTimeout != 5*time.Second || DefaultLLMError != LLMRateLimit {
		t.Errorf("defaults = %v, %v, %q, want 5s, 5s, %q", DefaultSlowDelay, DefaultToolTimeout, DefaultLLMError, LLMRateLimit)
	}
	for _, typ := range Types() {
		a := Action{Type: typ}
		switch {
		case typ == RemoveEdge:
			a.SourceID, a.TargetID = "a", "b"
		case typ != KillLeader && typ != KillOrchestrator:
			a.TargetID = "x"
		}
		got, err := a.Params()
		if err != nil {
			t.Errorf("Params(%q) error = %v, want nil", typ, err)
			continue
		}
		if diff := cmp.Diff(defaultParams, got, ignoreValues); diff != "" {
			t.Errorf("Params(%q) mismatch (-want +got):\n%s", typ, diff)
		}
	}
}

func TestActionValidateLLMErrorTypes(t *testing.T) {
	for _, et := range LLMErrorTypes() {
		a := Action{Type: LLMFailure, TargetID: "w", Metadata: map[string]any{"error_type": string(et)}}
		got, err := a.Params()
		if err != nil || got.ErrorType != et {
			t.Errorf("Params(error_type %q) = %q, %v, want %q, nil", et, got.ErrorType, err, et)
		}
	}
}

func TestActionValidateRejects(t *testing.T) {
	validTypes := builtins.Names()
	const errorTypes = "rate_limit, overloaded, timeout, server_error, invalid_response"
	meta := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		action  Action
		field   string
		wantErr string // the whole Error() text
	}{
		{
			name:    "missing type",
			action:  Action{TargetID: "w"},
			field:   "type",
			wantErr: "type: missing",
		},
		{
			name:    "unknown type lists the valid ones",
			action:  Action{Type: "kill_everything", TargetID: "w"},
			field:   "type",
			wantErr: `type: unknown action type "kill_everything" (want one of ` + validTypes + ")",
		},
		{
			name:    "type is case sensitive",
			action:  Action{Type: "KILL_AGENT", TargetID: "w"},
			field:   "type",
			wantErr: `type: unknown action type "KILL_AGENT" (want one of ` + validTypes + ")",
		},
		{
			name:    "kill_leader with target_id",
			action:  Action{Type: KillLeader, TargetID: "leader-0"},
			field:   "target_id",
			wantErr: "target_id: kill_leader takes no target_id: it hits the leader",
		},
		{
			name:    "kill_orchestrator with target_id",
			action:  Action{Type: KillOrchestrator, TargetID: "random"},
			field:   "target_id",
			wantErr: "target_id: kill_orchestrator takes no target_id: it hits the orchestrator",
		},
		{
			name:    "kill_agent without target",
			action:  Action{Type: KillAgent},
			field:   "target_id",
			wantErr: "target_id: missing",
		},
		{
			name:    "remove_node without target",
			action:  Action{Type: RemoveNode},
			field:   "target_id",
			wantErr: "target_id: missing",
		},
		{
			name:    "target with a space",
			action:  Action{Type: KillAgent, TargetID: "worker 1"},
			field:   "target_id",
			wantErr: `target_id: "worker 1" contains white space or control characters`,
		},
		{
			name:    "target with a trailing newline",
			action:  Action{Type: PauseAgent, TargetID: "worker-1\n"},
			field:   "target_id",
			wantErr: `target_id: "worker-1\n" contains white space or control characters`,
		},
		{
			name:    "target with a tab",
			action:  Action{Type: RemoveNode, TargetID: "\tnode"},
			field:   "target_id",
			wantErr: `target_id: "\tnode" contains white space or control characters`,
		},
		{
			name:    "target with a no-break space",
			action:  Action{Type: KillAgent, TargetID: "worker\u00a01"},
			field:   "target_id",
			wantErr: `target_id: "worker\u00a01" contains white space or control characters`,
		},
		{
			name:    "target with DEL",
			action:  Action{Type: KillAgent, TargetID: "worker\x7f"},
			field:   "target_id",
			wantErr: `target_id: "worker\x7f" contains white space or control characters`,
		},
		{
			name:    "target longer than 256 bytes",
			action:  Action{Type: KillAgent, TargetID: strings.Repeat("w", 257)},
			field:   "target_id",
			wantErr: "target_id: longer than 256 characters",
		},
		{
			name:    "type selector with empty type",
			action:  Action{Type: KillAgent, TargetID: "type:"},
			field:   "target_id",
			wantErr: `target_id: selector "type:" names no agent type`,
		},
		{
			name:    "type selector on remove_node",
			action:  Action{Type: RemoveNode, TargetID: "type:x"},
			field:   "target_id",
			wantErr: `target_id: selector "type:x" is only allowed for agent targets`,
		},
		{
			name:    "type selector as edge source",
			action:  Action{Type: RemoveEdge, SourceID: "type:x", TargetID: "b"},
			field:   "source_id",
			wantErr: `source_id: selector "type:x" is only allowed for agent targets`,
		},
		{
			name:    "remove_edge missing source_id",
			action:  Action{Type: RemoveEdge, TargetID: "b"},
			field:   "source_id",
			wantErr: "source_id: missing",
		},
		{
			name:    "remove_edge missing target_id",
			action:  Action{Type: RemoveEdge, SourceID: "a"},
			field:   "target_id",
			wantErr: "target_id: missing",
		},
		{
			name:    "remove_edge source with white space",
			action:  Action{Type: RemoveEdge, SourceID: "a b", TargetID: "c"},
			field:   "source_id",
			wantErr: `source_id: "a b" contains white space or control characters`,
		},
		{
			name:    "source_id on kill_agent",
			action:  Action{Type: KillAgent, SourceID: "a", TargetID: "w"},
			field:   "source_id",
			wantErr: "source_id: kill_agent takes no source_id",
		},
		{
			name:    "source_id on kill_leader is reported before anything else",
			action:  Action{Type: KillLeader, SourceID: "a", TargetID: "w"},
			field:   "source_id",
			wantErr: "source_id: kill_leader takes no source_id",
		},
		{
			name:    "source_id on remove_node",
			action:  Action{Type: RemoveNode, SourceID: "a", TargetID: "b"},
			field:   "source_id",
			wantErr: "source_id: remove_node takes no source_id",
		},
		{
			name:    "target is checked before metadata",
			action:  Action{Type: SlowAgent, Metadata: meta("dealy", "1s")},
			field:   "target_id",
			wantErr: "target_id: missing",
		},
		{
			name:    "misspelt metadata key names the allowed keys",
			action:  Action{Type: SlowAgent, TargetID: "w", Metadata: meta("dealy", "2s")},
			field:   "metadata.dealy",
			wantErr: "metadata.dealy: unknown key for slow_agent (want delay, duration)",
		},
		{
			name:    "key of another type",
			action:  Action{Type: SlowAgent, TargetID: "w", Metadata: meta("timeout", "2s")},
			field:   "metadata.timeout",
			wantErr: "metadata.timeout: unknown key for slow_agent (want delay, duration)",
		},
		{
			name:    "metadata keys are case sensitive",
			action:  Action{Type: PauseAgent, TargetID: "w", Metadata: meta("Duration", "2s")},
			field:   "metadata.Duration",
			wantErr: "metadata.Duration: unknown key for pause_agent (want duration)",
		},
		{
			name:    "metadata on kill_agent",
			action:  Action{Type: KillAgent, TargetID: "w", Metadata: meta("duration", "1s")},
			field:   "metadata.duration",
			wantErr: "metadata.duration: unknown key: kill_agent takes no metadata",
		},
		{
			name:    "metadata on remove_edge",
			action:  Action{Type: RemoveEdge, SourceID: "a", TargetID: "b", Metadata: meta("delay", "1s")},
			field:   "metadata.delay",
			wantErr: "metadata.delay: unknown key: remove_edge takes no metadata",
		},
		{
			name:    "error_type as a number",
			action:  Action{Type: LLMFailure, TargetID: "w", Metadata: meta("error_type", 429.0)},
			field:   "metadata.error_type",
			wantErr: "metadata.error_type: want a string, got float64",
		},
		{
			name:    "error_type as an int",
			action:  Action{Type: LLMFailure, TargetID: "w", Metadata: meta("error_type", 429)},
			field:   "metadata.error_type",
			wantErr: "metadata.error_type: want a string, got int",
		},
		{
			name:    "unknown error_type",
			action:  Action{Type: LLMFailure, TargetID: "w", Metadata: meta("error_type", "quota")},
			field:   "metadata.error_type",
			wantErr: `metadata.error_type: unknown error type "quota" (want one of ` + errorTypes + ")",
		},
		{
			name:    "error_type is case sensitive",
			action:  Action{Type: LLMFailure, TargetID: "w", Metadata: meta("error_type", "RATE_LIMIT")},
			field:   "metadata.error_type",
			wantErr: `metadata.error_type: unknown error type "RATE_LIMIT" (want one of ` + errorTypes + ")",
		},
		{
			name:    "negative duration string",
			action:  Action{Type: PauseAgent, TargetID: "w", Metadata: meta("duration", "-1s")},
			field:   "metadata.duration",
			wantErr: "metadata.duration: negative duration -1s (want 0 to 24h)",
		},
		{
			name:    "negative duration number",
			action:  Action{Type: PauseAgent, TargetID: "w", Metadata: meta("duration", -2)},
			field:   "metadata.duration",
			wantErr: "metadata.duration: negative duration -2s (want 0 to 24h)",
		},
		{
			name:    "negative delay",
			action:  Action{Type: SlowAgent, TargetID: "w", Metadata: meta("delay", -0.5)},
			field:   "metadata.delay",
			wantErr: "metadata.delay: negative duration -500ms (want 1ns to 1h)",
		},
		{
			name:    "unparsable duration",
			action:  Action{Type: SlowAgent, TargetID: "w", Metadata: meta("delay", "soon")},
			field:   "metadata.delay",
			wantErr: `metadata.delay: "soon" is not a duration (want a Go duration such as "1.5s" or a number of seconds)`,
		},
		{
			name:    "zero delay",
			action:  Action{Type: SlowAgent, TargetID: "w", Metadata: meta("delay", "0s")},
			field:   "metadata.delay",
			wantErr: "metadata.delay: must be positive (want 1ns to 1h)",
		},
		{
			name:    "zero delay as a number",
			action:  Action{Type: SlowAgent, TargetID: "w", Metadata: meta("delay", 0)},
			field:   "metadata.delay",
			wantErr: "metadata.delay: must be positive (want 1ns to 1h)",
		},
		{
			name:    "zero timeout",
			action:  Action{Type: ToolTimeout, TargetID: "w", Metadata: meta("timeout", 0.0)},
			field:   "metadata.timeout",
			wantErr: "metadata.timeout: must be positive (want 1ns to 1h)",
		},
		{
			name:    "bool where a duration is expected",
			action:  Action{Type: PauseAgent, TargetID: "w", Metadata: meta("duration", true)},
			field:   "metadata.duration",
			wantErr: "metadata.duration: true (bool) is not a duration",
		},
		{
			name:    "null duration",
			action:  Action{Type: MCPDisconnect, TargetID: "w", Metadata: meta("duration", nil)},
			field:   "metadata.duration",
			wantErr: "metadata.duration: missing duration",
		},
		{
			name:    "out of range duration",
			action:  Action{Type: MCPDisconnect, TargetID: "w", Metadata: meta("duration", 1e300)},
			field:   "metadata.duration",
			wantErr: "metadata.duration: 1e+300 seconds is out of range",
		},
		{
			name:    "first problem in key order",
			action:  Action{Type: SlowAgent, TargetID: "w", Metadata: meta("duration", "soon", "delay", "later")},
			field:   "metadata.delay",
			wantErr: `metadata.delay: "later" is not a duration (want a Go duration such as "1.5s" or a number of seconds)`,
		},
		{
			name:    "network_latency of zero",
			action:  Action{Type: NetworkLatency, TargetID: "w", Metadata: meta("latency", 0)},
			field:   "metadata.latency",
			wantErr: "metadata.latency: must be positive (want 1ns to 1h)",
		},
		{
			name:    "network_latency with a negative jitter",
			action:  Action{Type: NetworkLatency, TargetID: "w", Metadata: meta("jitter", "-5ms")},
			field:   "metadata.jitter",
			wantErr: "metadata.jitter: negative duration -5ms (want 0 to 1h)",
		},
		{
			name:    "network_latency with an unknown direction",
			action:  Action{Type: NetworkLatency, TargetID: "w", Metadata: meta("direction", "up")},
			field:   "metadata.direction",
			wantErr: `metadata.direction: unknown direction "up" (want one of both, inbound, outbound)`,
		},
		{
			name:    "network_latency with an empty peer",
			action:  Action{Type: NetworkLatency, TargetID: "w", Metadata: meta("peer", "")},
			field:   "metadata.peer",
			wantErr: "metadata.peer: empty: leave the key out to slow every link",
		},
		{
			name:    "network_latency with a peer with a space",
			action:  Action{Type: NetworkLatency, TargetID: "w", Metadata: meta("peer", "leader 0")},
			field:   "metadata.peer",
			wantErr: "metadata.peer: contains white space or control characters",
		},
		{
			name:    "network_bandwidth with a fraction of a byte",
			action:  Action{Type: NetworkBandwidth, TargetID: "w", Metadata: meta("rate", 1000.5)},
			field:   "metadata.rate",
			wantErr: "metadata.rate: want a whole number of bytes per second",
		},
		{
			name:    "network_bandwidth with a rate of zero",
			action:  Action{Type: NetworkBandwidth, TargetID: "w", Metadata: meta("rate", 0)},
			field:   "metadata.rate",
			wantErr: "metadata.rate: must be positive (want 1 to 1000000000000)",
		},
		{
			name:    "network_bandwidth with a rate written with a unit",
			action:  Action{Type: NetworkBandwidth, TargetID: "w", Metadata: meta("rate", "1MB/s")},
			field:   "metadata.rate",
			wantErr: "metadata.rate: want a number, got string",
		},
		{
			name:    "connection_reset with a negative after",
			action:  Action{Type: ConnectionReset, TargetID: "w", Metadata: meta("after", -1)},
			field:   "metadata.after",
			wantErr: "metadata.after: negative duration -1s (want 0 to 24h)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.action.Validate()
			if err == nil {
				t.Fatalf("Validate(%+v) = nil, want %q", tt.action, tt.wantErr)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("Validate(%+v) = %q, want %q", tt.action, err, tt.wantErr)
			}
			if !errors.Is(err, ErrInvalidAction) {
				t.Errorf("errors.Is(%v, ErrInvalidAction) = false, want true", err)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("errors.As(%v, *ValidationError) = false, want true", err)
			}
			if ve.Field != tt.field {
				t.Errorf("Validate(%+v).Field = %q, want %q", tt.action, ve.Field, tt.field)
			}
			// Params fails the same way and returns no half-decoded values.
			p, perr := tt.action.Params()
			if perr == nil || perr.Error() != err.Error() {
				t.Errorf("Params(%+v) error = %v, want %v", tt.action, perr, err)
			}
			if !cmp.Equal(p, Params{}) {
				t.Errorf("Params(%+v) = %+v on error, want the zero Params", tt.action, p)
			}
		})
	}
}

func TestActionValidateTargetLimits(t *testing.T) {
	// Exactly 256 bytes is allowed; selectors are plain IDs where they are
	// not selectors (random on a node, type: inside an ID).
	for _, a := range []Action{
		{Type: KillAgent, TargetID: strings.Repeat("w", 256)},
		{Type: KillAgent, TargetID: "type:x"},
		{Type: RemoveNode, TargetID: "random"},
		{Type: RemoveNode, TargetID: "node:type:x"},
		{Type: RemoveEdge, SourceID: "a", TargetID: "a"},
		{Type: KillAgent, TargetID: "wörker-ü"},
	} {
		if err := a.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", a, err)
		}
	}
}

func TestActionDurationsAsNumbersAndStrings(t *testing.T) {
	tests := []struct {
		value any
		want  time.Duration
	}{
		{2, 2 * time.Second},
		{1.5, 1500 * time.Millisecond},
		{int64(3), 3 * time.Second},
		{uint64(4), 4 * time.Second},
		{json.Number("0.25"), 250 * time.Millisecond},
		{"250ms", 250 * time.Millisecond},
		{"1m30s", 90 * time.Second},
		{"3", 3 * time.Second},
		{"0.5", 500 * time.Millisecond},
		{7 * time.Millisecond, 7 * time.Millisecond},
		{clock.Duration(8 * time.Millisecond), 8 * time.Millisecond},
	}
	for _, tt := range tests {
		for _, key := range []string{MetaDelay, MetaDuration} {
			a := Action{Type: SlowAgent, TargetID: "w", Metadata: map[string]any{key: tt.value}}
			p, err := a.Params()
			if err != nil {
				t.Errorf("Params(%s: %#v) error = %v, want nil", key, tt.value, err)
				continue
			}
			got := p.Delay
			if key == MetaDuration {
				got = p.Duration
			}
			if got != tt.want {
				t.Errorf("Params(%s: %#v).%s = %v, want %v", key, tt.value, key, got, tt.want)
			}
		}
	}
	// A zero duration is allowed: the fault stays until healed.
	p, err := Action{Type: PauseAgent, TargetID: "w", Metadata: map[string]any{"duration": 0}}.Params()
	if err != nil || p.Duration != 0 {
		t.Errorf("Params(duration: 0) = %v, %v, want 0s, nil", p.Duration, err)
	}
}

func TestActionDecodedFromJSONAndYAML(t *testing.T) {
	// Numbers from the decoders (float64 from JSON, int or float64 from YAML)
	// are seconds.
	tests := []struct {
		name, doc string
		decode    func([]byte, any) error
		want      Params
	}{
		{
			name:   "json int",
			doc:    `{"type":"slow_agent","target_id":"w","metadata":{"delay":2}}`,
			decode: json.Unmarshal,
			want:   withParams(func(p *Params) { p.Delay = 2 * time.Second }),
		},
		{
			name:   "json string and fraction",
			doc:    `{"type":"tool_timeout","target_id":"w","metadata":{"timeout":"250ms","duration":1.5}}`,
			decode: json.Unmarshal,
			want:   withParams(func(p *Params) { p.Timeout, p.Duration = 250*time.Millisecond, 1500*time.Millisecond }),
		},
		{
			name:   "yaml int",
			doc:    "type: slow_agent\ntarget_id: w\nmetadata:\n  delay: 2\n",
			decode: yaml.Unmarshal,
			want:   withParams(func(p *Params) { p.Delay = 2 * time.Second }),
		},
		{
			name:   "yaml duration string and float",
			doc:    "type: llm_failure\ntarget_id: type:worker\nmetadata:\n  error_type: timeout\n  duration: 1.5\n",
			decode: yaml.Unmarshal,
			want:   withParams(func(p *Params) { p.ErrorType, p.Duration = LLMTimeout, 1500*time.Millisecond }),
		},
		{
			name:   "yaml go duration",
			doc:    "type: pause_agent\ntarget_id: random\nmetadata:\n  duration: 1.5s\n",
			decode: yaml.Unmarshal,
			want:   withParams(func(p *Params) { p.Duration = 1500 * time.Millisecond }),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Action
			if err := tt.decode([]byte(tt.doc), &a); err != nil {
				t.Fatalf("decode(%q) error = %v", tt.doc, err)
			}
			got, err := a.Params()
			if err != nil {
				t.Fatalf("Params(%q) error = %v, want nil", tt.doc, err)
			}
			if diff := cmp.Diff(tt.want, got, ignoreValues); diff != "" {
				t.Errorf("Params(%q) mismatch (-want +got):\n%s", tt.doc, diff)
			}
		})
	}
}

// TestActionTypesList: Types lists the specs' types, in their order,
// each once; the thirteen of ares_arena come first, in their order, with
// their wire names: those never change (types added since follow them).
func TestActionTypesList(t *testing.T) {
	ares := []Type{
		"kill_leader", "kill_orchestrator", "kill_agent", "pause_agent", "resume_agent",
		"slow_agent", "network_partition", "tool_timeout", "memory_corrupt", "mcp_disconnect",
		"llm_failure", "remove_node", "remove_edge",
	}
	got := Types()
	if len(got) < len(ares) || !slices.Equal(ares, got[:len(ares)]) {
		t.Errorf("ActionTypes() = %v, want it to begin with ares_arena's %v", got, ares)
	}
	var specs []Type
	for _, s := range Specs() {
		specs = append(specs, s.Type)
	}
	if diff := cmp.Diff(specs, got); diff != "" {
		t.Errorf("ActionTypes() differs from the specs' types (-specs +got):\n%s", diff)
	}
	seen := map[Type]bool{}
	for _, typ := range got {
		if seen[typ] {
			t.Errorf("ActionTypes() lists %q twice", typ)
		}
		seen[typ] = true
		if !typ.Valid() {
			t.Errorf("%q.Valid() = false, want true", typ)
		}
	}

	// The caller owns the slice.
	got[0] = "mangled"
	if Types()[0] != KillLeader {
		t.Errorf("ActionTypes()[0] = %q after a caller changed its copy, want %q", Types()[0], KillLeader)
	}
	for _, typ := range []Type{"", "KILL_LEADER", "kill-leader", "kill_leader ", "mangled"} {
		if typ.Valid() {
			t.Errorf("%q.Valid() = true, want false", typ)
		}
	}
}

// TestActionTypeProperties: an Type's properties are its spec's: a
// DAG type targets a node or an edge, a liftable one lifts, and its keys
// are the spec's in order; exactly the liftable types take a duration.
func TestActionTypeProperties(t *testing.T) {
	for _, spec := range Specs() {
		typ := spec.Type
		if got, want := typ.NeedsDAG(), spec.Target == TargetNode || spec.Target == TargetEdge; got != want {
			t.Errorf("%q.NeedsDAG() = %v, want %v", typ, got, want)
		}
		if got, want := typ.Liftable(), spec.Lifts; got != want {
			t.Errorf("%q.Liftable() = %v, want %v", typ, got, want)
		}
		if got, want := slices.Contains(typ.MetadataKeys(), MetaDuration), typ.Liftable(); got != want {
			t.Errorf("%q.MetadataKeys() has duration = %v, want %v (Liftable)", typ, got, want)
		}
		var keys []string
		for _, k := range spec.Metadata {
			keys = append(keys, k.Name)
		}
		if diff := cmp.Diff(keys, typ.MetadataKeys()); diff != "" {
			t.Errorf("%q.MetadataKeys() mismatch (-want +got):\n%s", typ, diff)
		}
	}
	// The DAG types of ares_arena, and its liftable ones, stay so.
	for _, typ := range []Type{RemoveNode, RemoveEdge} {
		if !typ.NeedsDAG() {
			t.Errorf("%q.NeedsDAG() = false, want true", typ)
		}
	}
	for _, typ := range []Type{PauseAgent, SlowAgent, NetworkPartition, ToolTimeout, MCPDisconnect, LLMFailure} {
		if !typ.Liftable() {
			t.Errorf("%q.Liftable() = false, want true", typ)
		}
	}
	// Unknown types have no properties and no keys.
	unknown := Type("nope")
	if unknown.NeedsDAG() || unknown.Liftable() || unknown.MetadataKeys() != nil {
		t.Errorf("%q: NeedsDAG %v, Liftable %v, MetadataKeys %v, want false, false, nil",
			unknown, unknown.NeedsDAG(), unknown.Liftable(), unknown.MetadataKeys())
	}
	// MetadataKeys returns a copy: changing it does not change validation.
	k := SlowAgent.MetadataKeys()
	k[0] = "dealy"
	if err := (Action{Type: SlowAgent, TargetID: "w", Metadata: map[string]any{"dealy": 1}}).Validate(); err == nil {
		t.Errorf("Validate(dealy) = nil after changing a MetadataKeys copy, want an error")
	}
}

func TestLLMErrorTypes(t *testing.T) {
	want := []LLMErrorType{"rate_limit", "overloaded", "timeout", "server_error", "invalid_response"}
	if diff := cmp.Diff(want, LLMErrorTypes()); diff != "" {
		t.Errorf("LLMErrorTypes() mismatch (-want +got):\n%s", diff)
	}
	retryable := map[LLMErrorType]bool{
		LLMRateLimit:       true,
		LLMOverloaded:      true,
		LLMTimeout:         true,
		LLMServerError:     true,
		LLMInvalidResponse: false,
	}
	for et, want := range retryable {
		if got := et.Retryable(); got != want {
			t.Errorf("%q.Retryable() = %v, want %v", et, got, want)
		}
	}
}

func TestActionValidationErrorText(t *testing.T) {
	err := error(&ValidationError{Field: "metadata.delay", Msg: "must be positive"})
	if got, want := err.Error(), "metadata.delay: must be positive"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, ErrInvalidAction) {
		t.Errorf("errors.Is(%v, ErrInvalidAction) = false, want true", err)
	}
	if errors.Is(err, ErrNoRuntime) || errors.Is(err, ErrNoDAG) {
		t.Errorf("errors.Is(%v, ErrNoRuntime/ErrNoDAG) = true, want false", err)
	}
}

func TestActionJSONRoundTrip(t *testing.T) {
	a := Action{
		ID:        "act-1",
		Type:      RemoveEdge,
		TargetID:  "b",
		SourceID:  "a",
		Metadata:  map[string]any{"note": "x", "n": 1.5},
		CreatedAt: time.Date(2025, 3, 4, 5, 6, 7, 890, time.UTC),
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatalf("json.Marshal(%+v) error = %v", a, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatalf("json.Unmarshal(%s) error = %v", b, err)
	}
	gotKeys := make([]string, 0, len(fields))
	for k := range fields {
		gotKeys = append(gotKeys, k)
	}
	slices.Sort(gotKeys)
	wantKeys := []string{"created_at", "id", "metadata", "source_id", "target_id", "type"}
	if diff := cmp.Diff(wantKeys, gotKeys); diff != "" {
		t.Errorf("json.Marshal(action) keys mismatch (-want +got):\n%s", diff)
	}
	if got, want := string(fields["type"]), `"remove_edge"`; got != want {
		t.Errorf("json type = %s, want %s", got, want)
	}
	if got, want := string(fields["created_at"]), `"2025-03-04T05:06:07.00000089Z"`; got != want {
		t.Errorf("json created_at = %s, want %s", got, want)
	}
	var back Action
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("json.Unmarshal(%s) error = %v", b, err)
	}
	if diff := cmp.Diff(a, back); diff != "" {
		t.Errorf("JSON round trip mismatch (-want +got):\n%s", diff)
	}

	// Empty optional fields are left out; id, type and created_at stay.
	b, err = json.Marshal(Action{Type: KillLeader})
	if err != nil {
		t.Fatalf("json.Marshal error = %v", err)
	}
	if got, want := string(b), `{"id":"","type":"kill_leader","created_at":"0001-01-01T00:00:00Z"}`; got != want {
		t.Errorf("json.Marshal(kill_leader) = %s, want %s", got, want)
	}
}

func TestActionResultJSON(t *testing.T) {
	r := Result{
		Action:    Action{ID: "a1", Type: KillAgent, TargetID: "w"},
		Success:   false,
		Error:     "boom",
		Err:       errors.New("boom"),
		StartedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Duration:  clock.Duration(1500 * time.Millisecond),
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("json.Marshal(%+v) error = %v", r, err)
	}
	want := `{"action":{"id":"a1","type":"kill_agent","target_id":"w","created_at":"0001-01-01T00:00:00Z"},` +
		`"success":false,"error":"boom","started_at":"2025-01-02T03:04:05Z","duration":"1.5s"}`
	if string(b) != want {
		t.Errorf("json.Marshal(result) = %s, want %s", b, want)
	}
}
