//go:build !linux

package sandbox

import "syscall"

const supported = false

// Probe is what the kernel offers the sandbox: nothing on this system.
type Probe struct {
	LandlockABI    int
	UserNamespaces bool
}

// RunProbe finds nothing: only Linux is sandboxed.
func RunProbe(self string) Probe { return Probe{} }

// LandlockABI is 0: only Linux has Landlock.
func LandlockABI() int { return 0 }

// Wrap refuses: [New] never makes a sandbox here.
func (s *Sandbox) Wrap(shell string, args []string, attr *syscall.SysProcAttr) (string, []string, string, error) {
	return "", nil, "", ErrUnsupported
}

// Launch refuses: the launcher exists only on Linux.
func Launch(args []string) int { return 127 }

// LauncherArg is the launcher's hidden first argument.
const LauncherArg = "__pi-rpc-sandbox-exec"
