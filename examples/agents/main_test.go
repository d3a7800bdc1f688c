package agents

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(stdioServerEnv) != "" { // a ledger process of TestGoSDKOverCommandUnderFaults
		if err := serveStdioLedger(); err != nil {
			fmt.Fprintln(os.Stderr, "stdio ledger:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
