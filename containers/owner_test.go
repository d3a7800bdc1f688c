package containers

import (
	"os"
	"os/exec"
	"testing"
)

func TestOwnerGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skip("no `true` to start:", err)
	}
	ended := ownerOf(hostname(), cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		owner string
		gone  bool
	}{
		{processOwner, false},                             // this process
		{ownerOf(hostname(), os.Getppid()), false},        // a live one
		{ended, true},                                     // ended (its PID is free, or reused: the start differs)
		{"elsewhere/" + ended[len(hostname())+1:], false}, // another host's: cannot tell
		{hostname() + "/notapid/", false},                 // unreadable
		{"", false},
	} {
		if got := ownerGone(tc.owner); got != tc.gone {
			t.Errorf("ownerGone(%q) = %v, want %v", tc.owner, got, tc.gone)
		}
	}
}
