// Package clock is time as arena reads and writes it: the Clock a run
// reads, the kinds of clock a report names, the wall clock read outside
// any simulation, and Duration, the one wire encoding of a duration.
//
// # Clocks
//
// A run reads time only from its Clock. A *Virtual makes the run virtual:
// the run jumps the clock from event to event, so an hour of chaos takes
// milliseconds and the same seed always gives the same report; only a
// system whose every goroutine and timer follows the clock may run on it
// (VirtualSystem). Real reads the wall clock. Every report names the Kind
// of clock it played on (KindOf): virtual, simulated (a testing/synctest
// bubble, InBubble) or real, because what a report can promise depends on
// it. Wall reads the kernel's clock even inside a bubble, where time.Now
// is fake: a report's wall time and a check's time budget are measured
// with it.
//
// # Durations
//
// Duration is a time.Duration with arena's one encoding in YAML, JSON,
// HTTP, events and reports: a Go duration string ("1.5s"); decoders also
// accept a bare number of seconds (ParseDuration).
//
// # Index
//
//   - Clocks: Clock, Real, Virtual, NewVirtual, VirtualEpoch,
//     VirtualSystem, Kind, KindOf, InBubble, Wall.
//   - Durations: Duration, ParseDuration.
package clock
