package sandbox

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// BenchmarkSandboxedTrue is the cost of the sandbox per command: `bash -c true` plain, under
// Landlock (the network on) and under Landlock with the network namespace (the network off),
// for workspace-write and read-only (docs/benchmarks.md#the-sandbox).
func BenchmarkSandboxedTrue(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	if RunProbe(self).LandlockABI < 1 {
		b.Skip("the kernel has no Landlock")
	}
	cwd := b.TempDir()
	cases := []struct {
		name    string
		mode    Mode
		network bool
	}{
		{"plain", ModeOff, false},
		{"workspace-write/network-on", ModeWorkspaceWrite, true},
		{"workspace-write/network-off", ModeWorkspaceWrite, false},
		{"read-only/network-off", ModeReadOnly, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var s *Sandbox
			if c.mode != ModeOff {
				cfg, err := New(Options{Mode: c.mode, Network: c.network, Self: self})
				if err != nil {
					b.Fatal(err)
				}
				if s, err = cfg.For(cwd); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				attr := &syscall.SysProcAttr{Setpgid: true}
				path, argv := "/bin/bash", []string{"/bin/bash", "-c", "true"}
				if s != nil {
					if path, argv, _, err = s.Wrap("/bin/bash", []string{"-c", "true"}, attr); err != nil {
						b.Fatal(err)
					}
				}
				cmd := &exec.Cmd{Path: path, Args: argv, Dir: cwd, SysProcAttr: attr}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}
