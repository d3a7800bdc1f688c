package agentfault_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/agentapi/agentfault"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestFaultsCarryTheirParameters: each capability hands Land the fault the
// contract carries, with its parameters, and hands back Land's lift.
func TestFaultsCarryTheirParameters(t *testing.T) {
	var got []agentapi.Fault
	lifted := 0
	fs := agentfault.Faults{Land: func(_ context.Context, id string, f agentapi.Fault) (arena.Lift, error) {
		if id != "worker-1" {
			t.Errorf("Land on %q, want worker-1", id)
		}
		got = append(got, f)
		return func(context.Context) error { lifted++; return nil }, nil
	}}
	ctx := context.Background()
	var lifts []arena.Lift
	keep := func(l arena.Lift, err error) {
		if err != nil {
			t.Fatal(err)
		}
		lifts = append(lifts, l)
	}
	keep(fs.ToolTimeout(ctx, "worker-1", 3*time.Second))
	keep(fs.DisconnectMCP(ctx, "worker-1"))
	keep(fs.InjectLLMFailure(ctx, "worker-1", arena.LLMOverloaded))
	keep(fs.JumpClock(ctx, "worker-1", time.Minute))
	if err := fs.CorruptMemory(ctx, "worker-1"); err != nil {
		t.Fatal(err)
	}
	want := []agentapi.Fault{
		{Kind: agentapi.KindToolTimeout, Timeout: agentapi.Duration(3 * time.Second)},
		{Kind: agentapi.KindMCPDisconnect},
		{Kind: agentapi.KindLLMFailure, ErrorType: "overloaded"},
		{Kind: agentapi.KindClockJump, Offset: agentapi.Duration(time.Minute)},
		{Kind: agentapi.KindMemoryCorrupt},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("faults landed (-want +got):\n%s", diff)
	}
	for _, l := range lifts {
		_ = l(ctx)
	}
	if lifted != len(lifts) {
		t.Errorf("%d lifts ran, want the %d of the liftable faults", lifted, len(lifts))
	}
}
