package downstream_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Ginkgo's interrupt handler waits for SIGINT for the rest of the process:
// Ginkgo's goroutine, not a leak.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction(
		"github.com/onsi/ginkgo/v2/internal/interrupt_handler.(*InterruptHandler).registerForInterrupts.func2"))
}
