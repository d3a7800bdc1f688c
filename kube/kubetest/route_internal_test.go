package kubetest

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// A pod range that overlaps one of the host's networks is refused before
// any route is added: a local route would hide that network.
func TestPodNetworkRefusesTheHostsOwnRange(t *testing.T) {
	used, err := hostPrefixes(context.Background())
	if err != nil {
		t.Skipf("no ip command here: %v", err)
	}
	var host netip.Prefix
	for _, u := range used {
		if u.Bits() >= 8 && u.Bits() <= 30 {
			host = u
			break
		}
	}
	if !host.IsValid() {
		t.Skip("this host has no IPv4 network to overlap")
	}
	p := &Plane{opts: options{podCIDR: host.String(), podCIDRSet: true}}
	err = p.podNetwork(context.Background())
	if !errors.Is(err, ErrNoPodNetwork) || !strings.Contains(err.Error(), "overlaps a network of this host") {
		t.Fatalf("podNetwork(%s) = %v, want ErrNoPodNetwork naming the overlap", host, err)
	}
	if p.route != "" {
		t.Errorf("a route was added: %s", p.route)
	}
}

// A route whose owner died before Close is deleted by the next plane.
func TestStaleRoutesAreSwept(t *testing.T) {
	const cidr = "10.199.0.0/16"
	if out, err := exec.Command("ip", "route", "add", "local", cidr, "dev", "lo").CombinedOutput(); err != nil {
		t.Skipf("cannot add a route here (needs root or CAP_NET_ADMIN): %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "route", "del", "local", cidr, "dev", "lo").Run() })
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(routeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(routeFile(cidr), []byte(strconv.Itoa(dead.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	sweepStaleRoutes(context.Background())
	out, err := exec.Command("ip", "route", "show", "table", "local", cidr).Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(out)) != "" {
		t.Errorf("the dead owner's route is still there: %s", out)
	}
	if _, err := os.Stat(routeFile(cidr)); !os.IsNotExist(err) {
		t.Errorf("its record is still there: %v", err)
	}
}
