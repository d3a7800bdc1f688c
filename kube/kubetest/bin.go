package kubetest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// ToolsKey names the versions of the control plane's binaries; it is the
// name of their directory under $HOME/.cache/arena-kube-tools. It follows the
// go.mod files of kube/tools (a test checks it).
const ToolsKey = "k8s-v1.37.2_etcd-v3.6.16_kwok-v0.8.0_" + runtime.GOOS + "-" + runtime.GOARCH

// ToolsEnv names the environment variable that points at the directory of
// the binaries, overriding the cache directory.
const ToolsEnv = "ARENA_KUBE_TOOLS"

// RequireEnv names the environment variable that turns missing binaries
// from a skipped test into a failed one: CI sets ARENA_REQUIRE_KUBE=1.
const RequireEnv = "ARENA_REQUIRE_KUBE"

// StagesFile is the kwok stages file, beside the binaries.
const StagesFile = "kwok-stages.yaml"

// Binaries are the files the plane needs in ToolsDir.
var Binaries = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", StagesFile}

// ErrNoTools is returned (wrapped) by Start when a binary is missing.
var ErrNoTools = errors.New("kubetest: control plane binaries missing")

// ToolsDir is where the binaries are looked for: $ARENA_KUBE_TOOLS, or
// $HOME/.cache/arena-kube-tools/<ToolsKey>.
func ToolsDir() string {
	if d := os.Getenv(ToolsEnv); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, ".cache", "arena-kube-tools", ToolsKey)
}

// checkTools reports the first binary missing from dir.
func checkTools(dir string) error {
	for _, name := range Binaries {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("%w: %s not in %s (run `make kube-tools`, or set %s)", ErrNoTools, name, dir, ToolsEnv)
		}
		if name != StagesFile && fi.Mode()&0o111 == 0 {
			return fmt.Errorf("%w: %s in %s is not executable", ErrNoTools, name, dir)
		}
	}
	return nil
}
