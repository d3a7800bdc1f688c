package history_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/history"
)

// A client writes 1 then 2; another reads 1 after the second write was
// answered: not linearizable. (In a run, svc.Clock() is the clock and the
// check goes to engine.WithChecks.)
func ExampleLinearizable() {
	clk := clock.NewVirtual(time.Time{})
	rec := history.NewRecorder[history.KV](clk)
	check := history.Linearizable("kv linearizable", rec, history.KVModel(), history.WithBudget(10*time.Second), history.WithReportDir(""))

	for _, v := range []int64{1, 2} {
		c := rec.Invoke(1, history.Put("k7", v))
		clk.Advance(time.Millisecond)
		c.Done(history.Put("k7", v), nil)
	}
	c := rec.Invoke(2, history.Get("k7"))
	clk.Advance(time.Millisecond)
	c.OK(history.Get("k7").Read(1, true))

	err := check.Run(context.Background())
	fmt.Println(err)
	if v, ok := err.(*fault.Violation); ok {
		for _, d := range v.Details {
			fmt.Println(d)
		}
	}
	// Output:
	// key "k7" is not linearizable (3 operations, 0 with unknown outcomes)
	// longest linearizable prefix found: 2 of 3 operations, the last put(k7, 2) by client 1; the state then: 2
	// no order explains get(k7) = 1 by client 2, with no operation in flight with it, after put(k7, 2) by client 1 was answered
}
