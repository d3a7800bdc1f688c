package engine

// payloadSlab holds the payloads of the service's action, lift, health and
// fault outcome events,
// encoded one after another into shared blocks, so that Execute allocates a
// block per few dozen actions instead of a payload each. An event store keeps
// its events' payloads (it takes ownership of them) for as long as it
// retains them: a payload per allocation made every retained event one
// more object for the collector to allocate, mark and sweep, a tenth of
// Execute's time. Stores drop events oldest first, so a block is freed
// once the last event cut from it is dropped.
//
// A payload is never written again once handed out: the next one is
// encoded after it, and a payload's capacity ends where it ends, so
// appending to it copies.
//
// The service's mutex guards it: Execute encodes its payload in the
// critical section where it records the result, one lock for both.
type payloadSlab struct {
	buf []byte // the block's free part: len 0, its capacity what is left
}

// Sizes of the blocks, and of the room a payload is encoded into: an
// action event's payload is 100 to 200 bytes unless its error is long (it
// then gets an allocation of its own, as encoding past the room reallocates).
const (
	slabBlock = 8 << 10
	slabRoom  = 512
)

// actionEvent returns e's payload (ActionEvent.appendJSON), in the slab.
func (s *payloadSlab) actionEvent(e *ActionEvent) []byte {
	return s.keep(e.appendJSON(s.room()))
}

// liftEvent returns e's payload (liftEvent.appendJSON), in the slab.
func (s *payloadSlab) liftEvent(e *liftEvent) []byte {
	return s.keep(e.appendJSON(s.room()))
}

// healthEvent returns e's payload (HealthEvent.appendJSON), in the slab.
func (s *payloadSlab) healthEvent(e *HealthEvent) []byte {
	return s.keep(e.appendJSON(s.room()))
}

// faultOutcome returns f's payload (FaultOutcome.appendJSON), in the slab:
// an outcome with its checks is longer than an action's, so it gets twice
// the room.
func (s *payloadSlab) faultOutcome(f *FaultOutcome) ([]byte, error) {
	out, err := f.appendJSON(s.roomOf(2 * slabRoom))
	return s.keep(out), err
}

// room is where the next payload is encoded: the start of the block's free
// part, capped at slabRoom.
func (s *payloadSlab) room() []byte { return s.roomOf(slabRoom) }

func (s *payloadSlab) roomOf(n int) []byte {
	if cap(s.buf) < n {
		s.buf = make([]byte, 0, slabBlock)
	}
	return s.buf[:0:n]
}

// keep takes out, a payload encoded into room, out of the free part.
func (s *payloadSlab) keep(out []byte) []byte {
	if len(out) == 0 || &out[:1][0] != &s.buf[:1][0] {
		return out // it outgrew the room: a slice of its own
	}
	s.buf = s.buf[len(out):len(out)]
	return out[:len(out):len(out)]
}
