package arena

import (
	"time"

	"github.com/ares-arena/arena/clock"
)

// The names of package clock as they were in package arena.

// Clock is clock.Clock.
//
// Deprecated: use clock.Clock.
type Clock = clock.Clock

// ClockKind is clock.Kind.
//
// Deprecated: use clock.Kind.
type ClockKind = clock.Kind

// ClockReal is clock.KindReal.
//
// Deprecated: use clock.KindReal.
const ClockReal = clock.KindReal

// ClockSimulated is clock.KindSimulated.
//
// Deprecated: use clock.KindSimulated.
const ClockSimulated = clock.KindSimulated

// ClockVirtual is clock.KindVirtual.
//
// Deprecated: use clock.KindVirtual.
const ClockVirtual = clock.KindVirtual

// Duration is clock.Duration.
//
// Deprecated: use clock.Duration.
type Duration = clock.Duration

// InBubble is clock.InBubble.
//
// Deprecated: use clock.InBubble.
func InBubble() bool { return clock.InBubble() }

// NewVirtualClock is clock.NewVirtual.
//
// Deprecated: use clock.NewVirtual.
func NewVirtualClock(start time.Time) *VirtualClock { return clock.NewVirtual(start) }

// ParseDuration is clock.ParseDuration.
//
// Deprecated: use clock.ParseDuration.
func ParseDuration(v any) (time.Duration, error) { return clock.ParseDuration(v) }

// RealClock is clock.Real.
//
// Deprecated: use clock.Real.
type RealClock = clock.Real

// VirtualClock is clock.Virtual.
//
// Deprecated: use clock.Virtual.
type VirtualClock = clock.Virtual

// VirtualEpoch is clock.VirtualEpoch.
//
// Deprecated: use clock.VirtualEpoch.
func VirtualEpoch() time.Time { return clock.VirtualEpoch() }

// VirtualSystem is clock.VirtualSystem.
//
// Deprecated: use clock.VirtualSystem.
type VirtualSystem = clock.VirtualSystem
