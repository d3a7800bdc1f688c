package etcdcluster

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// No registry: no Ryuk reaper (Runtime.Close removes what it made), and
	// inside a container the daemon's ports are on loopback.
	setDefaultEnv("TESTCONTAINERS_RYUK_DISABLED", "true")
	if _, err := os.Stat("/.dockerenv"); err == nil {
		setDefaultEnv("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
	}
	code := m.Run()
	httpClient.CloseIdleConnections()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

func setDefaultEnv(k, v string) {
	if os.Getenv(k) == "" {
		os.Setenv(k, v)
	}
}
