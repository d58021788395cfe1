package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Mode is the --sandbox choice.
type Mode string

// The modes: off runs commands as the account does; read-only lets them read and execute
// everywhere and write nowhere but the sandbox's own caches and the devices; workspace-write
// adds the session's directory, /tmp, $TMPDIR and the --sandbox-write directories.
const (
	ModeOff            Mode = "off"
	ModeReadOnly       Mode = "read-only"
	ModeWorkspaceWrite Mode = "workspace-write"
)

// ParseMode checks a --sandbox value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeOff, ModeReadOnly, ModeWorkspaceWrite:
		return m, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q (valid: off, read-only, workspace-write)", s)
}

// Network names how the network is cut off, as reported.
const (
	NetworkNamespace   = "netns"        // a new user and network namespace: nothing but a private lo
	NetworkLandlockTCP = "landlock-tcp" // Landlock refuses TCP connect and bind; UDP, DNS and the rest stay open
	NetworkNone        = "none"         // the network is open (--sandbox-network on, or nothing to cut it)
)

// Options are the process-wide sandbox choices of the command line.
type Options struct {
	Mode Mode
	// Write lists the extra writable directories (--sandbox-write) of workspace-write.
	Write []string
	// Network allows the network (--sandbox-network on).
	Network bool
	// FallbackWarn runs commands unsandboxed, saying so in each result, when the kernel
	// cannot enforce the mode (--sandbox-fallback warn); otherwise such a command fails.
	FallbackWarn bool
	// Self is the pi-rpc executable that runs the launcher; empty means /proc/self/exe
	// resolved at [New].
	Self string
	// CacheDir holds the sandbox's own Go and npm caches; empty means the user's cache
	// directory's pi-rpc-sandbox.
	CacheDir string
	// Getenv reads the environment (TMPDIR, GOMODCACHE, GOPATH, HOME); nil means os.Getenv.
	Getenv func(string) string
}

// Report is what the probe found and what the mode will get, as initialize and getState
// report it.
type Report struct {
	Mode Mode `json:"mode"`
	// Enforced is true when the kernel enforces the mode (always false for off).
	Enforced bool `json:"enforced"`
	// LandlockABI is the kernel's Landlock ABI version; 0 when it has none.
	LandlockABI int `json:"landlockABI"`
	// Network is how the network is cut off: netns, landlock-tcp or none.
	Network string `json:"network"`
	// Missing names what the kernel lacks for the mode, each with what it costs.
	Missing []string `json:"missing"`
}

// Sandbox is the policy of one working directory's commands. A nil *Sandbox is no sandbox.
type Sandbox struct {
	opts   Options
	report Report
	probe  Probe
	cwd    string
	// write is the write set, resolved (symlinks evaluated); nil in read-only mode.
	write []string
	// caches is the sandbox's own cache directories (always writable).
	caches []string
	env    []string
}

// Config is the process's sandbox: the options and the probe, from which each working
// directory's [Sandbox] is made.
type Config struct {
	opts   Options
	probe  Probe
	report Report
}

// ErrUnsupported is returned by [New] on a system without a sandbox (macOS, Windows).
var ErrUnsupported = errors.New("the sandbox is not available on this operating system (only Linux, with Landlock); start without --sandbox")

// New probes the kernel once and returns the process's sandbox configuration; nil for
// --sandbox off. It fails where no sandbox exists at all (not Linux).
func New(o Options) (*Config, error) {
	if o.Mode == "" || o.Mode == ModeOff {
		return nil, nil
	}
	if !supported {
		return nil, ErrUnsupported
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Self == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("sandbox: cannot find pi-rpc's executable for the launcher: %w", err)
		}
		o.Self = self
	}
	if o.CacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		o.CacheDir = filepath.Join(base, "pi-rpc-sandbox")
	}
	for i, d := range o.Write {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("--sandbox-write: %w", err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("--sandbox-write: %s is not a directory", abs)
		}
		o.Write[i] = abs
	}
	p := RunProbe(o.Self)
	return &Config{opts: o, probe: p, report: report(o, p)}, nil
}

// Report returns what the probe found for the configured mode.
func (c *Config) Report() Report {
	if c == nil {
		return Report{Mode: ModeOff, Network: NetworkNone, Missing: []string{}}
	}
	r := c.report
	r.Missing = append([]string{}, r.Missing...)
	return r
}

// report judges what the probe means for the mode.
func report(o Options, p Probe) Report {
	r := Report{Mode: o.Mode, LandlockABI: p.LandlockABI, Network: NetworkNone, Missing: []string{}}
	if p.LandlockABI < 1 {
		r.Missing = append(r.Missing, "landlock: the kernel has no Landlock, so nothing confines the file system")
	} else {
		r.Enforced = true
		if p.LandlockABI < 2 {
			r.Missing = append(r.Missing, "landlock-refer (ABI 2): renames and links between directories are refused even inside the workspace")
		}
		if p.LandlockABI < 3 {
			r.Missing = append(r.Missing, "landlock-truncate (ABI 3): truncating a file outside the write set is not refused")
		}
		if p.LandlockABI < 5 {
			r.Missing = append(r.Missing, "landlock-ioctl-dev (ABI 5): ioctls on devices are not restricted")
		}
		if p.LandlockABI < 6 {
			r.Missing = append(r.Missing, "landlock-scope (ABI 6): commands can signal pi-rpc and reach abstract unix sockets outside")
		}
	}
	if !o.Network {
		switch {
		case p.UserNamespaces:
			r.Network = NetworkNamespace
		case p.LandlockABI >= 4:
			r.Network = NetworkLandlockTCP
			r.Missing = append(r.Missing, "user-namespaces: only TCP is cut off (Landlock); UDP (and so DNS), ICMP, SCTP and unix sockets stay open")
		default:
			r.Missing = append(r.Missing, "user-namespaces and landlock-tcp (ABI 4): the network stays open")
			r.Enforced = false
		}
	}
	return r
}

// For returns the sandbox of the commands run in cwd: cwd is writable in workspace-write.
func (c *Config) For(cwd string) (*Sandbox, error) {
	if c == nil {
		return nil, nil
	}
	s := &Sandbox{opts: c.opts, report: c.report, probe: c.probe, cwd: cwd}
	for _, name := range []string{"go-build", "go-mod", "npm", "xdg-cache"} {
		d := filepath.Join(c.opts.CacheDir, name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox: cache directory: %w", err)
		}
		s.caches = append(s.caches, d)
	}
	s.env = cacheEnv(s.caches, c.opts)
	if c.opts.Mode == ModeWorkspaceWrite {
		dirs := []string{cwd, "/tmp"}
		if t := c.opts.Getenv("TMPDIR"); t != "" {
			dirs = append(dirs, t)
		}
		dirs = append(dirs, c.opts.Write...)
		s.write = uniqueResolved(dirs)
	}
	return s, nil
}

// cacheEnv points Go's and npm's caches at the sandbox's own directories: a command that
// could write the user's GOCACHE or GOMODCACHE could plant a build result or a module source
// that a later unsandboxed build trusts without checking (the module cache is verified
// against go.sum only when a module is downloaded). With the network off, modules are taken
// from the user's module cache read-only (GOPROXY=file://…), still checked against go.sum.
func cacheEnv(caches []string, o Options) []string {
	env := []string{
		"GOCACHE=" + caches[0],
		"GOMODCACHE=" + caches[1],
		"npm_config_cache=" + caches[2],
		"XDG_CACHE_HOME=" + caches[3],
		"PI_RPC_SANDBOX=" + string(o.Mode),
	}
	if !o.Network {
		if mc := userModCache(o.Getenv); mc != "" {
			env = append(env, "GOPROXY=file://"+filepath.Join(mc, "cache", "download"))
		}
	}
	return env
}

// userModCache is the user's Go module cache: $GOMODCACHE, $GOPATH/pkg/mod or ~/go/pkg/mod.
func userModCache(getenv func(string) string) string {
	if v := getenv("GOMODCACHE"); v != "" {
		return v
	}
	if v := getenv("GOPATH"); v != "" {
		return filepath.Join(filepath.SplitList(v)[0], "pkg", "mod")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, "go", "pkg", "mod")
	}
	return ""
}

// uniqueResolved resolves symlinks in each directory (a missing one is kept as given) and
// drops duplicates, in a stable order.
func uniqueResolved(dirs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range dirs {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		}
		d = filepath.Clean(d)
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// Report returns the sandbox's report (a nil sandbox is off).
func (s *Sandbox) Report() Report {
	if s == nil {
		return (*Config)(nil).Report()
	}
	r := s.report
	r.Missing = append([]string{}, r.Missing...)
	return r
}

// Confines is true for a sandbox (tools.Confinement): a nil one confines nothing.
func (s *Sandbox) Confines() bool { return s != nil }

// WriteSet is the directories commands may write (besides the sandbox's caches and the
// devices): empty in read-only mode.
func (s *Sandbox) WriteSet() []string { return append([]string(nil), s.write...) }

// CheckWrite refuses a path outside the write set, in the words the write and edit tools
// use; path is absolute with its symlinks resolved (as far as it exists). It is the same set
// the launcher gives Landlock, so the model gets one answer from every tool.
func (s *Sandbox) CheckWrite(path string) error {
	if s == nil {
		return nil
	}
	for _, d := range s.write {
		if within(path, d) {
			return nil
		}
	}
	if s.opts.Mode == ModeReadOnly {
		return fmt.Errorf("Refused by the sandbox (read-only): %s cannot be written; this session's commands and tools write nowhere.", path)
	}
	return fmt.Errorf("Refused by the sandbox (workspace-write): %s is outside the writable directories (%s).", path, strings.Join(s.write, ", "))
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// Supported reports whether this system has the sandbox (Linux).
func Supported() bool { return supported }

// AtLeastAsStrict reports whether a session may choose m under the process's bound.
func AtLeastAsStrict(m, bound Mode) bool { return strictness(m) >= strictness(bound) }

// strictness orders the modes: a session may only ask for one at least as strict as the
// process's.
func strictness(m Mode) int {
	switch m {
	case ModeWorkspaceWrite:
		return 1
	case ModeReadOnly:
		return 2
	}
	return 0
}

// Choice is a session's own sandbox on top of the process's: an empty Mode or a nil Network
// keeps the process's.
type Choice struct {
	Mode    Mode
	Network *bool
	// Write lists directories (absolute, existing) the session's commands may also write,
	// besides the process's --sandbox-write; workspace-write only. They are no looser than
	// the session's own cwd, which its client chose too.
	Write []string
}

// Tighten returns the sandbox of a session that makes choice on top of c (nil: the process
// has none): it may be stricter than the process's, never looser, since the command line's
// choice bounds every session; only the extra writable directories add to it. o gives what a
// process without a sandbox needs to make one (the fallback choice).
func (c *Config) Tighten(choice Choice, o Options) (*Config, error) {
	cur := Options{Mode: ModeOff, Network: true}
	if c != nil {
		cur = c.opts
	}
	mode := choice.Mode
	if mode == "" {
		mode = cur.Mode
	}
	// A sandbox has the network off unless it is asked for: a session that turns one on
	// where the process has none gets it off too.
	netOn := cur.Network && cur.Mode != ModeOff
	if choice.Network != nil {
		netOn = *choice.Network
	}
	if strictness(mode) < strictness(cur.Mode) {
		return nil, fmt.Errorf("sandbox mode %s is looser than the server's --sandbox %s", mode, cur.Mode)
	}
	if netOn && !cur.Network {
		return nil, fmt.Errorf("sandbox network on is looser than the server's --sandbox-network off")
	}
	if len(choice.Write) > 0 && mode != ModeWorkspaceWrite {
		return nil, fmt.Errorf("sandbox write directories need mode workspace-write, not %s", mode)
	}
	for _, d := range choice.Write {
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("sandbox write directory %s is not absolute", d)
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("sandbox write directory %s is not a directory", d)
		}
	}
	if mode == ModeOff {
		return c, nil
	}
	if c == nil {
		o.Mode, o.Network, o.Write = mode, netOn, append([]string(nil), choice.Write...)
		return New(o)
	}
	t := *c
	t.opts.Mode, t.opts.Network = mode, netOn
	t.opts.Write = append(append([]string(nil), c.opts.Write...), choice.Write...)
	t.report = report(t.opts, t.probe)
	return &t, nil
}
