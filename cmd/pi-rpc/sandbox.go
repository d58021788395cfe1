package main

import (
	"flag"
	"fmt"
	"sync"

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

// confinementOf is s as the tools' Confinement: nil, not a nil pointer in an interface, when
// there is no sandbox.
func confinementOf(s *sandbox.Sandbox) tools.Confinement {
	if s == nil {
		return nil
	}
	return s
}

// sandboxStatus is the sandbox as initialize and getState report it (nil when off), logged
// once at start-up.
func sandboxStatus(c *sandbox.Config, log zerolog.Logger) *protocol.SandboxStatus {
	if c == nil {
		return nil
	}
	r := c.Report()
	level := zerolog.InfoLevel
	if !r.Enforced {
		level = zerolog.WarnLevel
	}
	log.WithLevel(level).Str("mode", string(r.Mode)).Bool("enforced", r.Enforced).Int("landlockABI", r.LandlockABI).
		Str("network", r.Network).Strs("missing", r.Missing).Msg("sandbox")
	return statusOf(c)
}

// statusOf is c as the protocol reports it; nil when off.
func statusOf(c *sandbox.Config) *protocol.SandboxStatus {
	if c == nil {
		return nil
	}
	r := c.Report()
	return &protocol.SandboxStatus{Mode: string(r.Mode), Enforced: r.Enforced, LandlockABI: r.LandlockABI, Network: r.Network, Missing: r.Missing}
}

// tighten is the sandbox of a session that chose its own (createSession's sandbox) on top of
// the process's c: stricter or the same, never looser.
func (f *sandboxFlags) tighten(c *sandbox.Config, choice *protocol.SandboxChoice) (*sandbox.Config, error) {
	mode := sandbox.Mode(choice.Mode)
	if mode != "" {
		if _, err := sandbox.ParseMode(choice.Mode); err != nil {
			return nil, err
		}
	}
	var network *bool
	switch choice.Network {
	case "":
	case "on", "off":
		on := choice.Network == "on"
		network = &on
	default:
		return nil, fmt.Errorf("network %q is not on or off", choice.Network)
	}
	return c.Tighten(mode, network, sandbox.Options{FallbackWarn: f.fallback == "warn"})
}

// sessionSandboxes holds the sandboxes of the sessions createSession opened with their own
// choice; the others have the process's.
type sessionSandboxes struct {
	mu  sync.Mutex
	own map[*session.Supervisor]*protocol.SandboxStatus
}

func (s *sessionSandboxes) set(sup *session.Supervisor, c *sandbox.Config) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.own == nil {
		s.own = map[*session.Supervisor]*protocol.SandboxStatus{}
	}
	s.own[sup] = statusOf(c)
}

func (s *sessionSandboxes) forget(sup *session.Supervisor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.own, sup)
}

// reporter is rpc's Options.Sandbox: a session's own sandbox, else the process's.
func (s *sessionSandboxes) reporter(process *protocol.SandboxStatus) func(*session.Supervisor) *protocol.SandboxStatus {
	return func(sup *session.Supervisor) *protocol.SandboxStatus {
		s.mu.Lock()
		defer s.mu.Unlock()
		if st, ok := s.own[sup]; ok {
			return st
		}
		return process
	}
}
