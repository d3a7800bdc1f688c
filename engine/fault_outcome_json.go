package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/ares-arena/arena/fault"
)

// appendFaultOutcome appends f's event, its payload encoded into the
// service's slab.
func (s *Service) appendFaultOutcome(ctx context.Context, typ string, at time.Time, f *FaultOutcome) {
	if s.store == nil {
		return
	}
	s.mu.Lock()
	data, err := s.payloads.faultOutcome(f)
	s.mu.Unlock()
	if err != nil {
		s.eventErr(err)
		return
	}
	s.appendEncoded(ctx, typ, at, data)
}

// appendJSON appends f encoded exactly as json.Marshal encodes it (a test
// and a fuzz target hold the two equal): a run reports one per fault, and
// the reflective encoder was a tenth of a virtual day's CPU. What it does
// not encode itself (a metadata value other than a string, a check with a
// violation) it hands to json.Marshal; where any part would fail, it
// encodes the whole outcome with json.Marshal, so that the error is the
// one json.Marshal gives.
func (f *FaultOutcome) appendJSON(b []byte) ([]byte, error) {
	if out, ok := f.appendFast(b); ok {
		return out, nil
	}
	data, err := json.Marshal(f)
	if err != nil {
		return b, err
	}
	return append(b, data...), nil
}

// appendFast is appendJSON without the fallback: ok is false where a part
// would not encode.
func (f *FaultOutcome) appendFast(b []byte) (_ []byte, ok bool) {
	b = append(b, `{"action":`...)
	if b, ok = appendAction(b, &f.Action); !ok {
		return b, false
	}
	b = append(b, `,"at":"`...)
	b = appendDuration(b, time.Duration(f.At))
	b = append(b, `","inject_duration":"`...)
	b = appendDuration(b, time.Duration(f.InjectDuration))
	b = append(b, `","degraded":`...)
	b = strconv.AppendBool(b, f.Degraded)
	b = append(b, `,"recovered":`...)
	b = strconv.AppendBool(b, f.Recovered)
	b = append(b, `,"ttr":"`...)
	b = appendDuration(b, time.Duration(f.TTR))
	b = append(b, '"')
	if f.Lifted != nil {
		b = append(b, `,"lifted":"`...)
		b = appendDuration(b, time.Duration(*f.Lifted))
		b = append(b, '"')
	}
	if f.HealedByRuntime != nil {
		b = append(b, `,"healed_by_runtime":"`...)
		b = appendDuration(b, time.Duration(*f.HealedByRuntime))
		b = append(b, '"')
	}
	b = appendOmitEmpty(b, `,"lift_error":`, f.LiftError)
	if f.Undecided {
		b = append(b, `,"undecided":true`...)
	}
	if len(f.Checks) > 0 {
		b = append(b, `,"checks":[`...)
		for i := range f.Checks {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = f.Checks[i].appendJSON(b); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
}

// appendAction appends a as json.Marshal encodes it; ok is false where that
// would fail.
func appendAction(b []byte, a *fault.Action) (_ []byte, ok bool) {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, a.ID)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, string(a.Type))
	b = appendOmitEmpty(b, `,"target_id":`, a.TargetID)
	b = appendOmitEmpty(b, `,"source_id":`, a.SourceID)
	if len(a.Metadata) > 0 {
		b = append(b, `,"metadata":`...)
		if b, ok = appendJSONMap(b, a.Metadata); !ok {
			return b, false
		}
	}
	b = append(b, `,"created_at":"`...)
	if b, ok = appendJSONTime(b, a.CreatedAt); !ok {
		return b, false
	}
	return append(b, `"}`...), true
}

// appendJSONMap appends m with its keys in the order encoding/json sorts
// them (bytewise, before escaping).
func appendJSONMap(b []byte, m map[string]any) (_ []byte, ok bool) {
	var room [8]string // an action's metadata has a few keys
	keys := room[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		if s, isString := m[k].(string); isString {
			b = appendJSONString(b, s)
			continue
		}
		v, err := json.Marshal(m[k])
		if err != nil {
			return b, false
		}
		b = append(b, v...)
	}
	return append(b, '}'), true
}

// appendJSONTime appends t as time.Time.MarshalJSON writes it, without the
// quotes; ok is false where MarshalJSON fails (the same checks on the same
// bytes: a year not of four digits, a zone offset of 24 hours or more).
func appendJSONTime(b []byte, t time.Time) (_ []byte, ok bool) {
	n0 := len(b)
	b = t.AppendFormat(b, time.RFC3339Nano)
	num2 := func(b []byte) byte { return 10*(b[0]-'0') + (b[1] - '0') }
	switch {
	case b[n0+len("9999")] != '-':
		return b, false
	case b[len(b)-1] != 'Z':
		c := b[len(b)-len("Z07:00")]
		if ('0' <= c && c <= '9') || num2(b[len(b)-len("07:00"):]) >= 24 {
			return b, false
		}
	}
	return b, true
}

// appendJSON appends c as json.Marshal encodes it; a check with a
// violation, rare, goes to json.Marshal whole.
func (c *CheckResult) appendJSON(b []byte) (_ []byte, ok bool) {
	if c.Violation != nil {
		v, err := json.Marshal(c)
		if err != nil {
			return b, false
		}
		return append(b, v...), true
	}
	b = append(b, `{"name":`...)
	b = appendJSONString(b, c.Name)
	b = append(b, `,"at":"`...)
	b = appendDuration(b, time.Duration(c.At))
	b = append(b, `","passed":`...)
	b = strconv.AppendBool(b, c.Passed)
	if c.NotApplicable {
		b = append(b, `,"not_applicable":true`...)
	}
	if c.Undecided {
		b = append(b, `,"undecided":true`...)
	}
	b = appendOmitEmpty(b, `,"error":`, c.Error)
	b = appendOmitEmpty(b, `,"fault_id":`, c.FaultID)
	return append(b, '}'), true
}
