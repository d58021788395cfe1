package sandbox

import (
	"encoding/json"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

const supported = true

// Probe is what the kernel offers the sandbox, found once at start-up.
type Probe struct {
	// LandlockABI is the Landlock ABI version (0: none, or the syscall is refused).
	LandlockABI int
	// UserNamespaces is true when an unprivileged user and network namespace can be made.
	UserNamespaces bool
}

// landlockCreateRulesetVersion is LANDLOCK_CREATE_RULESET_VERSION: with a NULL attr and
// size 0, landlock_create_ruleset returns the ABI version instead of a ruleset.
const landlockCreateRulesetVersion = 1

// sysLandlockCreateRuleset is landlock_create_ruleset's number, the same on every
// architecture (it came after the syscall tables were unified).
const sysLandlockCreateRuleset = 444

// LandlockABI asks the kernel for its Landlock ABI version; 0 when it has none (ENOSYS),
// has it disabled (EOPNOTSUPP) or a filter refuses the call. go-landlock's best-effort mode
// would silently enforce nothing on such a kernel: this is the check that says so.
func LandlockABI() int {
	v, _, errno := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, landlockCreateRulesetVersion)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// RunProbe probes Landlock and user namespaces; self is pi-rpc's executable, which runs the
// namespace probe as the launcher (see [launchSpec.NetNS] for why not pi-rpc itself).
func RunProbe(self string) Probe {
	return Probe{LandlockABI: LandlockABI(), UserNamespaces: userNamespaces(self)}
}

// userNamespaces asks the launcher to start /bin/true (or true on PATH) in a new user and
// network namespace, as it will start commands.
func userNamespaces(self string) bool {
	prog := "/bin/true"
	if _, err := os.Stat(prog); err != nil {
		if prog, err = exec.LookPath("true"); err != nil {
			return false
		}
	}
	data, _ := json.Marshal(launchSpec{ProbeNS: true})
	cmd := exec.Command(self, LauncherArg, string(data), prog) //nolint:noctx // a probe that exits at once.
	return cmd.Run() == nil
}

// addNamespaces makes the child start in a new user, network and mount namespace, its uid
// and gid mapped to themselves (so files it makes are the user's, and it gains no other identity).
func addNamespaces(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
	// A uid other than the namespace's root loses the namespace's capabilities at the exec:
	// the three the inner launcher needs (lo up, the read-only binds, dropping the bounding
	// set) are passed as ambient capabilities, and it drops them (and every other) before it
	// execs the command.
	a.AmbientCaps = []uintptr{unix.CAP_NET_ADMIN, unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
}
