package fault_test

import (
	"fmt"

	"github.com/ares-arena/arena/fault"
)

// Validation names the field at fault.
func ExampleAction_Validate() {
	a := fault.Action{Type: fault.SlowAgent, TargetID: "worker-1", Metadata: map[string]any{"dealy": "2s"}}
	fmt.Println(a.Validate())
	a = fault.Action{Type: fault.LLMFailure, TargetID: "worker-1", Metadata: map[string]any{"error_type": "teapot"}}
	fmt.Println(a.Validate())
	// Output:
	// metadata.dealy: unknown key for slow_agent (want delay, duration)
	// metadata.error_type: unknown error type "teapot" (want one of rate_limit, overloaded, timeout, server_error, invalid_response)
}
