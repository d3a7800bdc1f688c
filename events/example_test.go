package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ares-arena/arena/events"
)

func Example() {
	ctx := context.Background()
	store := events.NewMemoryStore()
	defer store.Close()

	faults, _ := store.Subscribe(ctx, events.Filter{Types: []string{"arena.fault.*"}})
	defer faults.Close()

	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) // from the run's virtual clock
	v, err := store.Append(ctx, "arena", []events.Event{
		{Type: "arena.action.executed", Time: at},
		{Type: "arena.fault.injected", Time: at.Add(time.Second), Data: json.RawMessage(`{"fault":"latency"}`)},
	}, 0)
	fmt.Println("version", v, err)

	e := <-faults.C()
	fmt.Println(e.ID, e.Sequence, e.Type, e.Time.Format(time.TimeOnly), string(e.Data))
	// Output:
	// version 2 <nil>
	// arena-2 2 arena.fault.injected 00:00:01 {"fault":"latency"}
}

// A writer that decides from what it read retries when someone appended
// in between.
func ExampleMemoryStore_Append() {
	ctx := context.Background()
	store := events.NewMemoryStore()
	defer store.Close()

	seen, _ := store.StreamVersion(ctx, "agent/planner")
	store.Append(ctx, "agent/planner", []events.Event{{Type: "agent.plan.created"}}, events.AnyVersion) // someone else

	_, err := store.Append(ctx, "agent/planner", []events.Event{{Type: "agent.plan.revised"}}, seen)
	var conflict *events.ConflictError
	if errors.As(err, &conflict) {
		fmt.Println(err)
		v, err := store.Append(ctx, "agent/planner", []events.Event{{Type: "agent.plan.revised"}}, conflict.Actual)
		fmt.Println("retried: version", v, err)
	}
	// Output:
	// events: stream "agent/planner": expected version 0, actual 1
	// retried: version 2 <nil>
}

// A subscriber that falls a whole buffer behind is dropped and resumes from
// LastSequence, missing nothing.
func ExampleMemoryStore_Subscribe() {
	ctx := context.Background()
	store := events.NewMemoryStore(events.WithSubscriberBuffer(2))
	defer store.Close()

	sub, _ := store.Subscribe(ctx, events.Filter{})
	store.Append(ctx, "arena", []events.Event{{Type: "a"}, {Type: "b"}, {Type: "c"}}, 0)
	for e := range sub.C() {
		fmt.Println(e.Sequence, e.Type)
	}
	fmt.Println(sub.Err())

	sub, _ = store.Subscribe(ctx, events.Filter{FromSequence: sub.LastSequence()})
	defer sub.Close()
	e := <-sub.C()
	fmt.Println(e.Sequence, e.Type)
	// Output:
	// 1 a
	// 2 b
	// events: subscriber lagged after sequence 2: buffer of 2 full
	// 3 c
}
