package kubetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// routeDir holds one file per pod-CIDR route a plane added, named for the
// range and holding the PID of the process that owns it: a plane whose test
// binary died before Close (a panic, -timeout) leaves its route, and the
// next plane deletes it.
var routeDir = filepath.Join(os.TempDir(), "arena-kubetest-routes")

// podNetwork picks a pod CIDR (unless WithPodCIDR chose one) and routes it
// to this host. A range that overlaps one of the host's addresses or routes
// is never taken: a local route would hide that network.
func (p *Plane) podNetwork(ctx context.Context) error {
	if _, err := exec.LookPath("ip"); err != nil {
		return fmt.Errorf("%w: no ip command: %v", ErrNoPodNetwork, err)
	}
	sweepStaleRoutes(ctx)
	used, err := hostPrefixes(ctx)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoPodNetwork, err)
	}
	cands := []string{p.opts.podCIDR}
	if !p.opts.podCIDRSet {
		cands = nil
		for _, i := range rand.Perm(50) {
			cands = append(cands, fmt.Sprintf("10.%d.0.0/16", 200+i))
		}
	}
	last := errors.New("every candidate range overlaps a network of this host")
	for _, cidr := range cands {
		pfx, err := netip.ParsePrefix(cidr)
		if err != nil {
			return fmt.Errorf("%w: pod CIDR %q: %v", ErrNoPodNetwork, cidr, err)
		}
		if overlaps(pfx, used) {
			last = fmt.Errorf("pod CIDR %s overlaps a network of this host", cidr)
			continue
		}
		out, err := exec.CommandContext(ctx, "ip", "route", "add", "local", cidr, "dev", "lo").CombinedOutput()
		if err == nil {
			p.opts.podCIDR = cidr
			p.route = cidr
			recordRoute(cidr)
			return nil
		}
		last = fmt.Errorf("ip route add local %s dev lo: %v: %s", cidr, err, strings.TrimSpace(string(out)))
		if !strings.Contains(string(out), "File exists") {
			break // not a clash with another plane's range: trying others will not help
		}
	}
	return fmt.Errorf("%w: %v", ErrNoPodNetwork, last)
}

func (p *Plane) deleteRoute() error {
	if p.route == "" {
		return nil
	}
	if err := delRoute(p.route); err != nil {
		return err
	}
	p.route = ""
	return nil
}

func delRoute(cidr string) error {
	out, err := exec.Command("ip", "route", "del", "local", cidr, "dev", "lo").CombinedOutput()
	if err != nil {
		return fmt.Errorf("kubetest: ip route del local %s: %v: %s", cidr, err, strings.TrimSpace(string(out)))
	}
	os.Remove(routeFile(cidr))
	return nil
}

func routeFile(cidr string) string {
	return filepath.Join(routeDir, strings.ReplaceAll(cidr, "/", "_"))
}

// recordRoute notes that this process owns the route (best effort: without
// the note a leaked route is only not swept).
func recordRoute(cidr string) {
	if os.MkdirAll(routeDir, 0o700) == nil {
		os.WriteFile(routeFile(cidr), []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
}

// sweepStaleRoutes deletes the routes whose owning process is gone.
func sweepStaleRoutes(ctx context.Context) {
	ents, _ := os.ReadDir(routeDir)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(routeDir, e.Name()))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || processAlive(pid) || ctx.Err() != nil {
			continue
		}
		cidr := strings.ReplaceAll(e.Name(), "_", "/")
		if err := delRoute(cidr); err != nil {
			os.Remove(filepath.Join(routeDir, e.Name())) // gone already
		}
	}
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// hostPrefixes lists the host's interface networks and the destinations of
// its routes in every table (other planes' pod ranges among them).
func hostPrefixes(ctx context.Context) ([]netip.Prefix, error) {
	var out []netip.Prefix
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if pfx, err := netip.ParsePrefix(n.String()); err == nil && pfx.Addr().Is4() {
				out = append(out, pfx.Masked())
			}
		}
	}
	b, err := exec.CommandContext(ctx, "ip", "-4", "route", "show", "table", "all").Output()
	if err != nil {
		return nil, fmt.Errorf("ip route show: %v", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		dst := f[0]
		if (dst == "local" || dst == "broadcast" || dst == "unicast") && len(f) > 1 {
			dst = f[1]
		}
		if dst == "default" {
			continue
		}
		if !strings.Contains(dst, "/") {
			dst += "/32"
		}
		if pfx, err := netip.ParsePrefix(dst); err == nil && !pfx.Addr().IsLoopback() {
			out = append(out, pfx.Masked())
		}
	}
	return out, nil
}

func overlaps(p netip.Prefix, used []netip.Prefix) bool {
	for _, u := range used {
		if p.Overlaps(u) {
			return true
		}
	}
	return false
}
