package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// Under Wine there is no Go toolchain: a Command takes the program of its package's name from
// BinDirEnv's directory instead of building it, and says so when the directory lacks it.
func TestCommandTakesThePrebuiltProgram(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, "mock-openai"+exeSuffix())
	if err := os.WriteFile(want, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(BinDirEnv, dir)
	c := Command{Pkg: "../../cmd/mock-openai"}
	if got, err := c.Build(); err != nil || got != want {
		t.Fatalf("Build = %q, %v; want %q", got, err, want)
	}
	c.Remove()
	if _, err := os.Stat(want); err != nil {
		t.Fatalf("Remove deleted the prebuilt program: %v", err)
	}
	missing := Command{Pkg: "./nothing-here"}
	if _, err := missing.Build(); err == nil {
		t.Fatal("a program the directory lacks was not reported")
	}
}
