package arenahttp

import "testing"

// TestFeedSince: a stream gets the frames after its cursor in order, waits
// when it has them all, is told it fell behind once the feed let go of
// frames it had not sent, and ends after the feed ends.
func TestFeedSince(t *testing.T) {
	f := &feed{start: 10, floor: 10, notify: make(chan struct{})}
	add := func(from, to uint64) {
		var batch []feedFrame
		for s := from; s <= to; s++ {
			batch = append(batch, feedFrame{seq: s, version: s - 10})
		}
		f.add(batch)
	}
	if frames, wait, _, ok := f.since(10, 100); !ok || len(frames) != 0 || wait == nil {
		t.Fatalf("empty feed: %d frames, ok %v", len(frames), ok)
	}
	_, wait, _, _ := f.since(10, 100)
	add(11, 20)
	select {
	case <-wait:
	default:
		t.Fatal("add did not wake the waiting stream")
	}
	frames, _, _, ok := f.since(14, 3)
	if !ok || len(frames) != 3 || frames[0].seq != 15 || frames[2].seq != 17 {
		t.Fatalf("since(14, 3) = %+v, %v", frames, ok)
	}
	add(21, 20+feedFrames) // more than the feed keeps: the oldest go
	if _, _, behind, ok := f.since(14, 100); ok || !behind {
		t.Errorf("a stream at 14 after %d more frames: ok %v, behind %v; want behind", feedFrames, ok, behind)
	}
	newest := uint64(20 + feedFrames)
	if frames, _, _, ok := f.since(newest-1, 100); !ok || len(frames) != 1 || frames[0].seq != newest {
		t.Errorf("since(newest-1) = %+v, %v", frames, ok)
	}
	f.end()
	if _, _, _, ok := f.since(newest-1, 100); !ok {
		t.Error("an ended feed withheld its last frame")
	}
	if _, _, behind, ok := f.since(newest, 100); ok || behind {
		t.Errorf("ended feed, all sent: ok %v behind %v; want the stream to end", ok, behind)
	}
}
