package engine

import (
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/ares-arena/arena/fault"
)

// appendJSON appends e encoded exactly as json.Marshal encodes it (a test
// and a fuzz target hold the two equal). Execute encodes one per call, so
// it skips the reflective encoder and its allocations.
func (e *ActionEvent) appendJSON(b []byte) []byte {
	b = append(b, `{"action_id":`...)
	b = appendJSONString(b, e.ActionID)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, string(e.Type))
	b = appendOmitEmpty(b, `,"target_id":`, e.TargetID)
	b = appendOmitEmpty(b, `,"source_id":`, e.SourceID)
	b = append(b, `,"success":`...)
	b = strconv.AppendBool(b, e.Success)
	b = appendOmitEmpty(b, `,"error":`, e.Error)
	b = append(b, `,"duration":"`...)
	b = appendDuration(b, time.Duration(e.Duration))
	return append(b, `"}`...)
}

// appendJSON appends e encoded exactly as json.Marshal encodes it (a test
// and a fuzz target hold the two equal): every landed fault arena lifts
// has one, and the reflective encoder's garbage was as much again as
// Execute's own.
func (e *liftEvent) appendJSON(b []byte) []byte {
	b = append(b, `{"action_id":`...)
	b = appendJSONString(b, e.ActionID)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, string(e.Type))
	b = append(b, `,"target_id":`...)
	b = appendJSONString(b, e.TargetID)
	b = append(b, `,"why":`...)
	b = appendJSONString(b, e.Why)
	b = appendOmitEmpty(b, `,"error":`, e.Error)
	return append(b, '}')
}

// jsonSafe marks the ASCII bytes appendJSONString copies as they are: not
// a control byte, a quote, a backslash or an HTML character.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := byte(0x20); c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString appends s as encoding/json writes a string: HTML
// characters and control bytes escaped, invalid UTF-8 replaced by U+FFFD,
// U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendOmitEmpty appends key (`,"name":`) and s as a JSON string, unless
// s is empty: a string field tagged omitempty.
func appendOmitEmpty(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendJSONString(append(b, key...), s)
}

// appendDuration appends d.String() without allocating the string.
func appendDuration(b []byte, d time.Duration) []byte {
	var buf [32]byte
	return append(b, formatDuration(&buf, d)...)
}

// formatDuration writes d as time.Duration.String does into the end of buf
// and returns that part (the same algorithm; a test holds them equal).
func formatDuration(buf *[32]byte, d time.Duration) []byte {
	w := len(buf)
	u := uint64(d)
	neg := d < 0
	if neg {
		u = -u
	}
	if u < uint64(time.Second) {
		// Sub-second: one unit, ns, µs or ms, with a fraction.
		var prec int
		w--
		buf[w] = 's'
		w--
		switch {
		case u == 0:
			buf[w] = '0'
			return buf[w:]
		case u < uint64(time.Microsecond):
			prec = 0
			buf[w] = 'n'
		case u < uint64(time.Millisecond):
			prec = 3
			// U+00B5 'µ' micro sign == 0xC2 0xB5
			w-- // need room for two bytes
			copy(buf[w:], "µ")
		default:
			prec = 6
			buf[w] = 'm'
		}
		w, u = fmtFrac(buf[:w], u, prec)
		w = fmtInt(buf[:w], u)
	} else {
		w--
		buf[w] = 's'
		w, u = fmtFrac(buf[:w], u, 9)
		w = fmtInt(buf[:w], u%60) // u is now integer seconds
		u /= 60
		if u > 0 {
			w--
			buf[w] = 'm'
			w = fmtInt(buf[:w], u%60)
			u /= 60
			if u > 0 {
				w--
				buf[w] = 'h'
				w = fmtInt(buf[:w], u)
			}
		}
	}
	if neg {
		w--
		buf[w] = '-'
	}
	return buf[w:]
}

// fmtFrac formats the fraction of v/10**prec (e.g., ".12345") into the tail
// of buf, omitting trailing zeros and the point when the fraction is 0. It
// returns the index where the output begins and v/10**prec.
func fmtFrac(buf []byte, v uint64, prec int) (nw int, nv uint64) {
	w := len(buf)
	print := false
	for range prec {
		digit := v % 10
		print = print || digit != 0
		if print {
			w--
			buf[w] = byte(digit) + '0'
		}
		v /= 10
	}
	if print {
		w--
		buf[w] = '.'
	}
	return w, v
}

// fmtInt formats v into the tail of buf and returns where the output begins.
func fmtInt(buf []byte, v uint64) int {
	w := len(buf)
	if v == 0 {
		w--
		buf[w] = '0'
	} else {
		for v > 0 {
			w--
			buf[w] = byte(v%10) + '0'
			v /= 10
		}
	}
	return w
}

// serviceID is the form of the IDs Execute gives (actionID): reserved, so
// that an ID a caller chose cannot be one the service hands out later (an
// active fault holding it would block that action).
var serviceID = regexp.MustCompile(`^act-[0-9]+$`)

// checkGivenID checks an action ID a caller gave: an identifier of at most
// 256 bytes, not of the service's own form.
func checkGivenID(id string) error {
	switch {
	case len(id) > 256:
		return fault.Invalid("id", "%d bytes, longer than 256", len(id))
	case fault.IdentifierProblem(id) != "":
		return fault.Invalid("id", "%q %s", id, fault.IdentifierProblem(id))
	case serviceID.MatchString(id):
		return fault.Invalid("id", "%q has the form of the IDs the service gives (act-<number>): leave id out to get one, or choose another", id)
	}
	return nil
}

// appendActionID appends the ID Execute gives an action without one: "act-"
// and n, zero-padded to six digits (fmt.Sprintf("act-%06d", n)).
func appendActionID(b []byte, n uint64) []byte {
	b = append(b, "act-"...)
	for p := uint64(100000); p > 1 && n < p; p /= 10 {
		b = append(b, '0')
	}
	return strconv.AppendUint(b, n, 10)
}

// idBlockLen is how many action IDs share one string (idBlocks).
const idBlockLen = 64

// idBlocks hands out the IDs of appendActionID cut from one string per block of
// idBlockLen numbers: an ID is a substring of its block's, so Execute does
// not allocate one per action (an ID kept keeps its block's, about 700
// bytes, alive). Safe for concurrent use: callers racing across a block's
// edge each make the block they need.
type idBlocks struct{ cur atomic.Pointer[idBlock] }

type idBlock struct {
	first uint64
	s     string
	ends  [idBlockLen]uint16 // where each ID ends in s
}

func (b *idBlocks) id(n uint64) string {
	blk := b.cur.Load()
	if blk == nil || n-blk.first >= idBlockLen {
		blk = newIDBlock(n - n%idBlockLen)
		b.cur.Store(blk)
	}
	i := n - blk.first
	start := uint16(0)
	if i > 0 {
		start = blk.ends[i-1]
	}
	return blk.s[start:blk.ends[i]]
}

// newIDBlock formats the block's first ID and counts the others up from it
// in decimal, a digit or so per ID instead of a conversion each (that was
// a thirtieth of Execute). The IDs of a block are all as long: from 10^6
// on, where IDs outgrow their six padded digits, every power of ten is a
// multiple of idBlockLen (64 divides 10^6), so no block crosses one.
func newIDBlock(first uint64) *idBlock {
	blk := &idBlock{first: first}
	var buf [24]byte
	id := appendActionID(buf[:0], first)
	var sb strings.Builder
	sb.Grow(idBlockLen * len(id))
	for i := range idBlockLen {
		if i > 0 {
			nextActionID(id)
		}
		sb.Write(id)
		blk.ends[i] = uint16(sb.Len())
	}
	blk.s = sb.String()
	return blk
}

// nextActionID turns id, the ID of n, into that of n+1 in place: n+1 has
// as many digits within a block (see newIDBlock).
func nextActionID(id []byte) {
	i := len(id) - 1
	for id[i] == '9' {
		id[i] = '0'
		i--
	}
	id[i]++
}
