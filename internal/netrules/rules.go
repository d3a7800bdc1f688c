// Package netrules is arena's one implementation of the network-fault
// rules: how the latency, jitter, bandwidth cap, connection reset and
// partition on the two ends of a link combine into the delays and errors of
// one call over it. The fakes, netfault and the simulated network all use
// it, each on its own clock:
//
//   - a caller on a virtual clock that never blocks (the fakes) draws a
//     [Plan] for each call ([PlanOf]) and turns it into deadlines
//     ([Plan.Exchange], [Plan.Step]);
//   - a caller whose calls block (netfault, a simulated network inside a
//     testing/synctest bubble) keeps its faults in [Links] and waits each
//     step of a call out with [Wait] on a [Clock]: the wait ends when it is
//     over, when the faults of the link change (a lift ends it at once, a
//     new fault lengthens it), when its context ends (a deadline, the
//     connection's Close) or when the clock closes (the network's Close).
//
// The rules, for a call from → to:
//
//   - A fault on either end counts; a call from an agent to itself counts
//     its faults once.
//   - network_latency adds latency plus a uniform draw in [−jitter,
//     +jitter], never below zero, one draw per end and call, only on the
//     link to its peer when it has one. Its direction is seen from its
//     agent: outbound on what the agent sends, inbound on what it receives,
//     both half each way (the odd nanosecond on the receiving leg). Two
//     latencies add up.
//   - network_bandwidth caps each way at the lower rate of the two ends:
//     moving n bytes takes n/rate.
//   - connection_reset resets the call once it has lasted after (at once
//     for 0): a step that would end at or past that instant is cut there
//     and the call is reset. The earlier reset of the two ends wins.
//   - network_partition cuts the link: nothing crosses it.
//
// Every sum saturates at the largest duration: no values, nor two of them
// on the two ends of a link, overflow.
package netrules

import (
	"math"
	"math/bits"
	"time"

	"github.com/ares-arena/arena/fault"
)

// Faults are the network faults on one end of a link: on one agent's links.
type Faults struct {
	Latency     fault.Latency // Latency.Latency 0: none
	Rate        int64         // bytes per second, each way; 0: no cap
	Reset       bool          // connection_reset is in force
	ResetAfter  time.Duration // how long a call lasts before it is reset
	Partitioned bool          // network_partition: nothing crosses the link
}

// None reports whether f holds no fault.
func (f Faults) None() bool { return f == Faults{} }

// End is one end of a link: an agent and the faults on its links (nil:
// none).
type End struct {
	ID     string
	Faults *Faults
}

// Source draws uniform random numbers in [0, n); *rand.Rand is one.
type Source interface{ Uint64N(n uint64) uint64 }

// Never is Plan.ResetAt when the call is not reset.
const Never time.Duration = -1

// Forever is the largest duration: what a saturated sum is.
const Forever time.Duration = math.MaxInt64

// Plan is what the faults on a link do to one call from → to, drawn when
// the call starts.
type Plan struct {
	Out, Back time.Duration // latency on the request leg and on the response leg
	Rate      int64         // bytes per second, the lower cap of the two ends; 0: no cap
	ResetAt   time.Duration // the call is reset once it has lasted this; Never: not
	Cut       bool          // partitioned: nothing crosses the link
}

// None reports whether the plan does nothing to a call: no delay, no
// reset, no cut.
func (p Plan) None() bool { return p == Plan{ResetAt: Never} }

// PlanOf draws the plan of a call from → to under the faults of both ends
// (see the package documentation for the rules); jitter is drawn from src,
// the caller's end first.
func PlanOf(from, to End, src Source) Plan {
	p := Plan{ResetAt: Never}
	for k, e := range [2]End{from, to} {
		if e.Faults == nil || (k == 1 && to.ID == from.ID) {
			continue
		}
		f, other := e.Faults, [2]string{to.ID, from.ID}[k]
		if l := f.Latency; l.Latency > 0 && (l.Peer == "" || l.Peer == other) {
			d := draw(l, src)
			// k == 0: the end is the caller, so what it sends is the request leg.
			sends, receives := &p.Out, &p.Back
			if k == 1 {
				sends, receives = &p.Back, &p.Out
			}
			switch l.Direction {
			case fault.DirectionOutbound:
				*sends = Add(*sends, d)
			case fault.DirectionInbound:
				*receives = Add(*receives, d)
			default:
				*sends = Add(*sends, d/2)
				*receives = Add(*receives, d-d/2)
			}
		}
		if f.Rate > 0 && (p.Rate == 0 || f.Rate < p.Rate) {
			p.Rate = f.Rate
		}
		if f.Reset && (p.ResetAt == Never || max(f.ResetAfter, 0) < p.ResetAt) {
			p.ResetAt = max(f.ResetAfter, 0)
		}
		p.Cut = p.Cut || f.Partitioned
	}
	return p
}

// draw is a latency plus a uniform draw in [−jitter, +jitter], never below
// zero. 2·jitter+1 fits a uint64 for every jitter a Duration can hold.
func draw(l fault.Latency, src Source) time.Duration {
	d := l.Latency
	if l.Jitter <= 0 || src == nil {
		return max(d, 0)
	}
	j := uint64(l.Jitter)
	off := src.Uint64N(2*j + 1)
	if off >= j {
		return Add(d, time.Duration(off-j))
	}
	return max(d-time.Duration(j-off), 0) // d ≥ 0 and j-off ≤ MaxInt64: no wrap
}

// Split divides a latency between the two ways of its agent's links, by
// its direction: what the agent sends, what it receives (a zero Latency:
// that way is not slowed). Both: half each way, the odd nanosecond on what
// it receives, as PlanOf divides a drawn delay. For a runtime that hands
// the delaying to something else (the containers' proxies), one leg each.
func Split(l fault.Latency) (sends, receives fault.Latency) {
	switch l.Direction {
	case fault.DirectionOutbound:
		return l, fault.Latency{}
	case fault.DirectionInbound:
		return fault.Latency{}, l
	}
	half := fault.Latency{Latency: l.Latency / 2, Jitter: l.Jitter / 2}
	return half, fault.Latency{Latency: l.Latency - half.Latency, Jitter: l.Jitter - half.Jitter}
}

// Add adds two non-negative durations, saturating at Forever.
func Add(a, b time.Duration) time.Duration {
	if s := a + b; s >= a {
		return s
	}
	return Forever
}

// Transfer is how long moving n bytes takes under the plan's rate (0 with
// no cap), saturating at Forever.
func (p Plan) Transfer(n int64) time.Duration {
	if p.Rate <= 0 || n <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(n), uint64(time.Second))
	if hi >= uint64(p.Rate) {
		return Forever
	}
	q, _ := bits.Div64(hi, lo, uint64(p.Rate))
	if q > math.MaxInt64 {
		return Forever
	}
	return time.Duration(q)
}

// Exchange is what the plan adds to a request and its response moving n
// bytes in all, taken as one step: both legs' latency and the transfer.
func (p Plan) Exchange(n int64) time.Duration {
	return Add(Add(p.Out, p.Back), p.Transfer(n))
}

// Step is a step of the call that starts once the call has lasted spent
// and takes d: how long it waits, and whether the call is reset at the end
// of that wait (the reset comes at ResetAt, when the step would end there
// or later; a reset already due comes at once).
func (p Plan) Step(spent, d time.Duration) (wait time.Duration, reset bool) {
	if p.ResetAt != Never && Add(max(spent, 0), d) >= p.ResetAt {
		return max(p.ResetAt-max(spent, 0), 0), true
	}
	return d, false
}
