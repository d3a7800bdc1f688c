package containers

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// LabelOwner names the process that created a resource, as
// "host/pid/start" (start: the process's start time in clock ticks since
// boot, from /proc, so that a reused PID is not taken for the owner; empty
// where /proc is not there). SweepStale removes at once what an owner that
// is gone from this host left behind.
const LabelOwner = "arena.owner"

// processOwner is this process's LabelOwner value.
var processOwner = ownerOf(hostname(), os.Getpid())

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}

func ownerOf(host string, pid int) string {
	return fmt.Sprintf("%s/%d/%s", host, pid, startTime(pid))
}

// startTime is field 22 of /proc/<pid>/stat, "" when it cannot be read.
func startTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(b[i+1:])) // from field 3 on
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// ownerGone reports whether owner (a LabelOwner value) is a process of this
// host that has ended. An owner on another host, this process, or a value
// it cannot read is never gone: a live run is never swept.
func ownerGone(owner string) bool {
	parts := strings.Split(owner, "/")
	if len(parts) != 3 || parts[0] != hostname() {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	// The PID is taken: by the owner, or by a later process.
	start := startTime(pid)
	return parts[2] != "" && start != "" && start != parts[2]
}
