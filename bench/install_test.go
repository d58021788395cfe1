package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The binaries under test run from copies in the bench's directory: the same bytes,
// executable, and -pi-rpc and -base point at the copies (the report keeps -base as given).
func TestInstallCopiesRunsTheBinariesFromCopies(t *testing.T) {
	src := t.TempDir()
	piRPC, base := filepath.Join(src, "pi-rpc"), filepath.Join(src, "old", "pi-rpc")
	for p, content := range map[string]string{piRPC: "new build", base: "old build"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config{piRPC: piRPC, base: base, root: t.TempDir()}
	if err := installCopies(&cfg); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{cfg.piRPC: "new build", cfg.base: "old build"} {
		if !strings.HasPrefix(p, cfg.root+string(filepath.Separator)) {
			t.Errorf("%s is not in the bench's directory %s", p, cfg.root)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, []byte(want)) {
			t.Errorf("%s holds %q, want %q", p, got, want)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o100 == 0 {
			t.Errorf("%s is not executable (%v, %v)", p, fi.Mode(), err)
		}
	}
	if cfg.piRPC == cfg.base {
		t.Errorf("both binaries were copied to %s", cfg.piRPC)
	}
}

// Without -base only pi-rpc is copied.
func TestInstallCopiesWithoutBase(t *testing.T) {
	piRPC := filepath.Join(t.TempDir(), "pi-rpc")
	if err := os.WriteFile(piRPC, []byte("build"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := config{piRPC: piRPC, root: t.TempDir()}
	if err := installCopies(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.base != "" || cfg.piRPC == piRPC {
		t.Errorf("piRPC %q, base %q: want a copy of pi-rpc and no base", cfg.piRPC, cfg.base)
	}
}
