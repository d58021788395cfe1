package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// LauncherArg is the hidden first argument that makes pi-rpc the launcher: pi-rpc
// LauncherArg SPEC SHELL ARGS... applies SPEC (JSON, [launchSpec]) to itself and execs SHELL
// with ARGS. It is internal: only pi-rpc runs it, and its form may change in any release.
const LauncherArg = "__pi-rpc-sandbox-exec"

// launchSpec is what the launcher applies before it execs the shell.
type launchSpec struct {
	// Write is the writable directories (with the refer right): the write set and the
	// sandbox's caches.
	Write []string `json:"write"`
	// NetOff makes Landlock refuse TCP connect and bind.
	NetOff bool `json:"netOff,omitempty"`
	// NetNS cuts the network off with a new user and network namespace. The launcher (whose
	// parent, pi-rpc, is not dumpable and so cannot write a child's uid_map) starts itself
	// again in the namespaces with Inner set, and waits for it.
	NetNS bool `json:"netNS,omitempty"`
	// Inner says this launcher runs in the new namespaces: it brings lo up and drops every
	// capability before the exec.
	Inner bool `json:"inner,omitempty"`
	// Protect is bound read-only in the inner launcher's own mount namespace: the write set's
	// .git/hooks and .git/config, which a command could otherwise fill with commands that the
	// user's next unsandboxed git runs.
	Protect []string `json:"protect,omitempty"`
	// ProbeNS asks the launcher only whether it can make the namespaces (exit 0 if so).
	ProbeNS bool `json:"probeNS,omitempty"`
	// Env is set (KEY=VALUE) in the shell's environment.
	Env []string `json:"env,omitempty"`
}

// devices are the device files commands may open for reading and writing, with ioctl.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/urandom", "/dev/random"}

// deviceDirs are the directories of devices and shared memory commands may use.
var deviceDirs = []string{"/dev/pts", "/dev/shm"}

// Launch is the launcher's whole life: it returns only on failure, with the exit code, after
// saying why on stderr (which the command's output carries to the model).
func Launch(args []string) int {
	// Capabilities, no_new_privs (set here) and the exec are per thread: keep to one.
	runtime.LockOSThread()
	if err := launch(args); err != nil {
		fmt.Fprintln(os.Stderr, "pi-rpc sandbox:", err)
		return 126
	}
	return 0
}

func launch(args []string) error {
	if len(args) < 2 {
		return errors.New("the launcher is internal to pi-rpc (usage: " + LauncherArg + " SPEC SHELL ARGS...)")
	}
	var spec launchSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		return fmt.Errorf("bad launch spec: %w", err)
	}
	if spec.ProbeNS {
		return startInNamespaces(exec.Command(args[1])) //nolint:noctx // a probe that exits at once.
	}
	if LandlockABI() < 1 {
		return errors.New("the kernel has no Landlock: the command was not run")
	}
	if spec.NetNS && !spec.Inner {
		return runInner(spec, args[1:])
	}
	if spec.Inner {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("bringing up lo in the network namespace: %w", err)
		}
		if err := protect(spec.Protect); err != nil {
			return fmt.Errorf("binding .git read-only: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("PR_SET_NO_NEW_PRIVS: %w", err)
	}
	if err := restrict(spec); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if spec.Inner {
		if err := dropCapabilities(); err != nil {
			return fmt.Errorf("dropping capabilities: %w", err)
		}
	}
	env := os.Environ()
	env = append(env, spec.Env...)
	return syscall.Exec(args[1], args[1:], env)
}

// runInner runs the launcher again in a new user and network namespace and exits as it
// does. It stays in pi-rpc's process group, so a cancellation reaches both.
func runInner(spec launchSpec, rest []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	spec.Inner = true
	data, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	cmd := exec.Command(self, append([]string{LauncherArg, string(data)}, rest...)...) //nolint:noctx // killed with its process group.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := startInNamespaces(cmd); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				os.Exit(128 + int(ws.Signal()))
			}
			os.Exit(ee.ExitCode())
		}
		return fmt.Errorf("starting the command in a user and network namespace: %w", err)
	}
	os.Exit(0)
	return nil
}

// startInNamespaces runs cmd in a new user and network namespace and waits for it.
func startInNamespaces(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	addNamespaces(cmd.SysProcAttr)
	return cmd.Run()
}

// restrict applies the Landlock ruleset: read and execute everywhere, write (with refer) in
// spec.Write, the devices usable, signals and abstract unix sockets scoped to the sandbox,
// and with NetOff no TCP at all. The ABI was checked by the caller, so best effort only drops
// what an older kernel lacks (reported as missing by the probe).
func restrict(spec launchSpec) error {
	cfg := landlock.V7
	if !spec.NetOff {
		cfg.HandledAccessNet = 0
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(devices...).WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs(deviceDirs...).WithIoctlDev().IgnoreIfMissing(),
	}
	if len(spec.Write) > 0 {
		rules = append(rules, landlock.RWDirs(spec.Write...).WithRefer().IgnoreIfMissing())
	}
	return cfg.BestEffort().Restrict(rules...)
}

// protect binds each path read-only onto itself, in this launcher's new mount namespace
// (made private first, so nothing propagates back to the user's).
func protect(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making / private: %w", err)
	}
	for _, p := range paths {
		if err := unix.Mount(p, p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
		// A remount in a user namespace must keep the flags the mount is locked with.
		var st unix.Statfs_t
		if err := unix.Statfs(p, &st); err != nil {
			return err
		}
		flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
		for _, f := range [][2]int64{{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME}} {
			if st.Flags&f[0] != 0 {
				flags |= uintptr(f[1])
			}
		}
		if err := unix.Mount("", p, "", flags, ""); err != nil {
			return fmt.Errorf("remount %s read-only: %w", p, err)
		}
	}
	return nil
}

// loopbackUp sets IFF_UP on lo, the only interface of a new network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(fd) }()
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// dropCapabilities gives up what the new user namespace granted: the bounding set (so an
// exec as uid 0 of the namespace gains nothing), the ambient set, then every set of this
// thread.
func dropCapabilities() error {
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("PR_CAPBSET_DROP %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("PR_CAP_AMBIENT_CLEAR_ALL: %w", err)
	}
	var data [2]unix.CapUserData
	return unix.Capset(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &data[0])
}

// Wrap returns how to run shell with args under the sandbox: pi-rpc's launcher (attr is
// left as it is: the launcher makes the namespaces itself). When the kernel cannot
// enforce the mode, Wrap fails with the reason, or with --sandbox-fallback warn returns the
// shell itself and a notice for the result.
func (s *Sandbox) Wrap(shell string, args []string, attr *syscall.SysProcAttr) (path string, argv []string, notice string, err error) {
	if !s.report.Enforced {
		reason := fmt.Sprintf("the sandbox (%s) cannot be enforced on this kernel: %s", s.opts.Mode, joinMissing(s.report.Missing))
		if s.opts.FallbackWarn {
			return shell, append([]string{shell}, args...), "[pi-rpc: this command ran unsandboxed (--sandbox-fallback warn): " + reason + "]", nil
		}
		return "", nil, "", errors.New("Refused to run the command: " + reason + " (start pi-rpc with --sandbox-fallback warn to run commands unsandboxed)")
	}
	spec := launchSpec{Write: append(append([]string{}, s.write...), s.caches...), Env: s.env}
	if !s.opts.Network {
		spec.NetOff = true
		spec.NetNS = s.report.Network == NetworkNamespace
		if spec.NetNS {
			spec.Protect = gitHooks(s.write)
		}
	}
	data, err := json.Marshal(spec)
	if err != nil {
		return "", nil, "", err
	}
	return s.opts.Self, append([]string{s.opts.Self, LauncherArg, string(data), shell}, args...), "", nil
}

func joinMissing(m []string) string {
	if len(m) == 0 {
		return "unknown"
	}
	out := m[0]
	for _, x := range m[1:] {
		out += "; " + x
	}
	return out
}

// gitHooks lists what of each writable directory's repository would run commands later:
// .git/hooks and .git/config, where they are a real directory and file.
func gitHooks(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		for _, p := range []string{filepath.Join(d, ".git", "hooks"), filepath.Join(d, ".git", "config")} {
			if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink == 0 {
				out = append(out, p)
			}
		}
	}
	return out
}
