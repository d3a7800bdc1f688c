package kubetest

import "syscall"

// sysProcAttr has the kernel kill a plane's process when the test binary
// that started it dies without closing the plane.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
