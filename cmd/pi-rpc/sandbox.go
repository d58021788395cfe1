package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/internal/sandbox"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/tools"
)

// sandboxFlags are --sandbox, --sandbox-write, --sandbox-network and --sandbox-fallback
// (docs/permissions.md#the-sandbox).
type sandboxFlags struct {
	mode     string
	write    []string
	network  string
	fallback string
	// given names the --sandbox flags the command line gave: then pi's settings.json's
	// sandbox key is not used.
	given map[string]bool
}

// noteGiven records a flag the command line gave.
func (f *sandboxFlags) noteGiven(name string) {
	if strings.HasPrefix(name, "sandbox") {
		if f.given == nil {
			f.given = map[string]bool{}
		}
		f.given[name] = true
	}
}

// piSandbox is settings.json's sandbox key in pi mode: the --sandbox flags' values, used
// when the command line gives none of those flags.
type piSandbox struct {
	Mode     string   `json:"mode"`
	Network  string   `json:"network"`
	Write    []string `json:"write"`
	Fallback string   `json:"fallback"`
}

// applySettings takes settings.json's sandbox unless the command line gave a --sandbox flag
// (its choice is then whole, as given), after checking each value.
func (f *sandboxFlags) applySettings(s *piSandbox) error {
	if s == nil || len(f.given) > 0 {
		return nil
	}
	if _, err := sandbox.ParseMode(s.Mode); s.Mode != "" && err != nil {
		return fmt.Errorf("sandbox.mode: %w", err)
	}
	if s.Network != "" && s.Network != "on" && s.Network != "off" {
		return fmt.Errorf("sandbox.network: %q is not on or off", s.Network)
	}
	if s.Fallback != "" && s.Fallback != "refuse" && s.Fallback != "warn" {
		return fmt.Errorf("sandbox.fallback: %q is not refuse or warn", s.Fallback)
	}
	if s.Mode != "" {
		f.mode = s.Mode
	}
	if s.Network != "" {
		f.network = s.Network
	}
	f.write = append([]string(nil), s.Write...)
	if s.Fallback != "" {
		f.fallback = s.Fallback
	}
	return nil
}

func (f *sandboxFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.mode, "sandbox", "off", "run bash commands in an OS sandbox (Linux): off, read-only or workspace-write")
	fs.Func("sandbox-write", "a directory sandboxed commands may also write (repeatable; workspace-write)", func(v string) error {
		f.write = append(f.write, v)
		return nil
	})
	fs.StringVar(&f.network, "sandbox-network", "off", "network of sandboxed commands: on or off")
	fs.StringVar(&f.fallback, "sandbox-fallback", "refuse", "when the kernel cannot enforce --sandbox: refuse (each bash call fails) or warn (run unsandboxed, saying so)")
}

// config checks the flags and probes the kernel: nil for --sandbox off. Asking for a
// sandbox where none exists (macOS, Windows) is a start-up error.
func (f *sandboxFlags) config() (*sandbox.Config, error) {
	if f.mode == "" && len(f.write) == 0 && f.network == "" && f.fallback == "" {
		return nil, nil // a config made without the flags (tests)
	}
	mode, err := sandbox.ParseMode(f.mode)
	if err != nil {
		return nil, fmt.Errorf("--sandbox: %w", err)
	}
	if f.network != "on" && f.network != "off" {
		return nil, fmt.Errorf("--sandbox-network: %q is not on or off", f.network)
	}
	if f.fallback != "refuse" && f.fallback != "warn" {
		return nil, fmt.Errorf("--sandbox-fallback: %q is not refuse or warn", f.fallback)
	}
	if mode == sandbox.ModeOff && (len(f.write) > 0 || f.network == "on" || f.fallback == "warn") {
		return nil, fmt.Errorf("--sandbox-write, --sandbox-network and --sandbox-fallback need --sandbox read-only or workspace-write")
	}
	c, err := sandbox.New(sandbox.Options{
		Mode: mode, Write: append([]string(nil), f.write...), Network: f.network == "on", FallbackWarn: f.fallback == "warn",
	})
	if err != nil {
		return nil, fmt.Errorf("--sandbox: %w", err)
	}
	return c, nil
}

// logSandbox logs what the start-up probe found for --sandbox (nothing when off).
func logSandbox(c *sandbox.Config, log zerolog.Logger) {
	if c == nil {
		return
	}
	r := c.Report()
	level := zerolog.InfoLevel
	if !r.Enforced {
		level = zerolog.WarnLevel
	}
	log.WithLevel(level).Str("mode", string(r.Mode)).Bool("enforced", r.Enforced).Int("landlockABI", r.LandlockABI).
		Str("network", r.Network).Strs("missing", r.Missing).Msg("sandbox")
}

// statusOf is c as the protocol reports it; nil when off.
func statusOf(c *sandbox.Config) *protocol.SandboxStatus {
	if c == nil {
		return nil
	}
	r := c.Report()
	return &protocol.SandboxStatus{Mode: string(r.Mode), Enforced: r.Enforced, LandlockABI: r.LandlockABI, Network: r.Network, Missing: r.Missing}
}

// sessionSandbox is one session's sandbox, which its front end may change while the session
// lives (createSession's and setOptions' sandbox, ACP's sandbox option, pi's settings): the
// tools and the user's bash ask it at each command, so a change holds from the next one. The
// command line's sandbox bounds every choice.
type sessionSandbox struct {
	process      *sandbox.Config // --sandbox's (nil: off)
	fallbackWarn bool
	cwd          string

	// changing serialises the changes; mu guards the fields below it, which each command reads.
	changing sync.Mutex
	mu       sync.Mutex
	choice   protocol.SandboxChoice // what the session chose on top of the process's
	cfg      *sandbox.Config        // the sandbox in force (nil: off)
	sb       *sandbox.Sandbox       // cfg's policy for cwd
}

// newSessionSandbox is the sandbox of a session in cwd: the process's, tightened by choice
// when set.
func newSessionSandbox(process *sandbox.Config, fallbackWarn bool, cwd string, choice *protocol.SandboxChoice) (*sessionSandbox, error) {
	s := &sessionSandbox{process: process, fallbackWarn: fallbackWarn, cwd: cwd}
	var c protocol.SandboxChoice
	if choice != nil {
		c = *choice
	}
	if err := s.apply(c); err != nil {
		return nil, err
	}
	return s, nil
}

// set changes the session's choice: the fields choice gives replace the session's, the
// others stay. An error leaves the sandbox as it was.
func (s *sessionSandbox) set(choice protocol.SandboxChoice) error {
	s.changing.Lock()
	defer s.changing.Unlock()
	s.mu.Lock()
	c := s.choice
	s.mu.Unlock()
	if choice.Mode != "" {
		c.Mode = choice.Mode
	}
	if choice.Network != "" {
		c.Network = choice.Network
	}
	if choice.Write != nil {
		c.Write = choice.Write
	}
	return s.apply(c)
}

// apply makes c the session's sandbox.
func (s *sessionSandbox) apply(c protocol.SandboxChoice) error {
	ch, err := s.resolve(c)
	if err != nil {
		return err
	}
	cfg, err := s.process.Tighten(ch, sandbox.Options{FallbackWarn: s.fallbackWarn})
	if err != nil {
		return err
	}
	sb, err := cfg.For(s.cwd)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.choice, s.cfg, s.sb = c, cfg, sb
	return nil
}

// resolve checks c's values and makes its write directories absolute: a relative one is
// relative to the session's cwd, as the session's other paths are.
func (s *sessionSandbox) resolve(c protocol.SandboxChoice) (sandbox.Choice, error) {
	var ch sandbox.Choice
	if c.Mode != "" {
		m, err := sandbox.ParseMode(c.Mode)
		if err != nil {
			return ch, err
		}
		ch.Mode = m
	}
	switch c.Network {
	case "":
	case "on", "off":
		on := c.Network == "on"
		ch.Network = &on
	default:
		return ch, fmt.Errorf("network %q is not on or off", c.Network)
	}
	for _, d := range c.Write {
		if !filepath.IsAbs(d) {
			d = filepath.Join(s.cwd, d)
		}
		ch.Write = append(ch.Write, filepath.Clean(d))
	}
	return ch, nil
}

// current is the sandbox in force (nil: off).
func (s *sessionSandbox) current() *sandbox.Sandbox {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sb
}

// status is the session's sandbox as the protocols report it; nil when off.
func (s *sessionSandbox) status() *protocol.SandboxStatus {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return statusOf(s.cfg)
}

// mode is the session's sandbox mode.
func (s *sessionSandbox) mode() sandbox.Mode {
	if st := s.status(); st != nil {
		return sandbox.Mode(st.Mode)
	}
	return sandbox.ModeOff
}

// Wrap confines a command with the sandbox in force; with none it runs as it is.
func (s *sessionSandbox) Wrap(shell string, args []string, attr *syscall.SysProcAttr) (string, []string, string, error) {
	sb := s.current()
	if sb == nil {
		return shell, append([]string{shell}, args...), "", nil
	}
	return sb.Wrap(shell, args, attr)
}

// CheckWrite refuses what the sandbox in force would refuse.
func (s *sessionSandbox) CheckWrite(path string) error { return s.current().CheckWrite(path) }

// Confines reports whether a sandbox is in force.
func (s *sessionSandbox) Confines() bool { return s.current() != nil }

// sessionSandboxes holds each open session's sandbox, for the front ends to report and
// change.
type sessionSandboxes struct {
	mu  sync.Mutex
	own map[*session.Supervisor]*sessionSandbox
}

func (s *sessionSandboxes) set(sup *session.Supervisor, sb *sessionSandbox) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.own == nil {
		s.own = map[*session.Supervisor]*sessionSandbox{}
	}
	s.own[sup] = sb
}

func (s *sessionSandboxes) forget(sup *session.Supervisor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.own, sup)
}

func (s *sessionSandboxes) of(sup *session.Supervisor) *sessionSandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.own[sup]
}

// Status is rpc's Sandboxes.Status.
func (s *sessionSandboxes) Status(sup *session.Supervisor) *protocol.SandboxStatus {
	return s.of(sup).status()
}

// Set is rpc's Sandboxes.Set: a refused choice is an invalid state, as createSession's.
func (s *sessionSandboxes) Set(sup *session.Supervisor, choice protocol.SandboxChoice) error {
	sb := s.of(sup)
	if sb == nil {
		return &session.Error{Kind: session.KindInvalidState, Message: "sandbox: the session has none"}
	}
	if err := sb.set(choice); err != nil {
		return &session.Error{Kind: session.KindInvalidState, Message: "sandbox: " + err.Error()}
	}
	return nil
}

// acpSandboxes are the sessions' sandboxes as ACP's sandbox config option offers them.
type acpSandboxes struct {
	*sessionSandboxes
	process *sandbox.Config
}

// sandboxModes are the modes, loosest first.
var sandboxModes = []sandbox.Mode{sandbox.ModeOff, sandbox.ModeWorkspaceWrite, sandbox.ModeReadOnly}

// Modes are the modes at least as strict as the command line's; none where no sandbox exists.
func (a acpSandboxes) Modes(sup *session.Supervisor) ([]string, string) {
	sb := a.of(sup)
	if !sandbox.Supported() || sb == nil {
		return nil, ""
	}
	var out []string
	for _, m := range sandboxModes {
		if sandbox.AtLeastAsStrict(m, a.process.Report().Mode) {
			out = append(out, string(m))
		}
	}
	return out, string(sb.mode())
}

// SetMode changes the session's mode, keeping its network and directories.
func (a acpSandboxes) SetMode(sup *session.Supervisor, mode string) error {
	sb := a.of(sup)
	if sb == nil {
		return fmt.Errorf("the session has no sandbox")
	}
	if _, err := sandbox.ParseMode(mode); err != nil {
		return err
	}
	return sb.set(protocol.SandboxChoice{Mode: mode})
}

// Info is the command line's sandbox as initialize reports it; with --sandbox off, the
// kernel's Landlock ABI too, so an editor knows whether a mode it picks will be enforced.
func (a acpSandboxes) Info() any {
	if st := statusOf(a.process); st != nil {
		return st
	}
	r := a.process.Report()
	return protocol.SandboxStatus{Mode: string(r.Mode), LandlockABI: sandbox.LandlockABI(), Network: r.Network, Missing: r.Missing}
}

// promptSandbox is what the system prompt says of the sandbox a session starts in: nothing
// (its "not sandboxed") when it is off or the kernel does not enforce it. A later change
// (setOptions, an ACP option) is not written into the prompt, which the model's provider
// caches; the bash results say then what the sandbox refused.
func promptSandbox(st *protocol.SandboxStatus) string {
	if st == nil || !st.Enforced {
		return ""
	}
	return tools.SandboxGuideline(st.Mode, st.Network != sandbox.NetworkNone)
}
