package testkit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Command is a Go command that a test package builds once, when a test first asks for it,
// into a temporary directory of its own (or takes the prebuilt one of [BinDirEnv]); the
// package's TestMain calls Remove after m.Run.
type Command struct {
	// Pkg is the command's package as go build takes it, relative to the test's directory.
	Pkg string
	// Module, when set, is the module's root, whose sources are read before the build
	// (ReadModuleSources) so that go test's cache sees a change to what the command is
	// built from.
	Module string

	once sync.Once
	dir  string
	path string
	err  error
}

// Build builds the command the first time it is called and returns its path.
func (c *Command) Build() (string, error) {
	c.once.Do(func() {
		if pre := os.Getenv(BinDirEnv); pre != "" {
			c.path, c.err = c.prebuilt(pre)
			return
		}
		if c.Module != "" {
			if c.err = ReadModuleSources(c.Module); c.err != nil {
				return
			}
		}
		if c.dir, c.err = os.MkdirTemp("", "pi-rpc-test-bin-"); c.err != nil {
			return
		}
		c.path = filepath.Join(c.dir, filepath.Base(filepath.Clean(c.Pkg)))
		if c.Pkg == "." {
			wd, err := os.Getwd()
			if err != nil {
				c.err = err
				return
			}
			c.path = filepath.Join(c.dir, filepath.Base(wd))
		}
		c.path += exeSuffix()
		if out, err := exec.CommandContext(context.Background(), "go", "build", "-o", c.path, c.Pkg).CombinedOutput(); err != nil {
			c.err = fmt.Errorf("go build %s: %w\n%s", c.Pkg, err, out)
		}
	})
	return c.path, c.err
}

// prebuilt is the command in the directory of prebuilt programs ([BinDirEnv]): what a test
// binary under Wine, which has no Go toolchain, runs instead of building.
func (c *Command) prebuilt(dir string) (string, error) {
	name := filepath.Base(filepath.Clean(c.Pkg))
	if c.Pkg == "." {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		name = filepath.Base(wd)
	}
	path := filepath.Join(dir, name+exeSuffix())
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s names no prebuilt %s: %w", BinDirEnv, name, err)
	}
	return path, nil
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// Path is Build for a test, which a failed build fails.
func (c *Command) Path(t testing.TB) string {
	t.Helper()
	path, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Remove deletes the built command, if it was built.
func (c *Command) Remove() {
	if c.dir != "" {
		_ = os.RemoveAll(c.dir)
	}
}
