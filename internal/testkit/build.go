package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// BinDirEnv names a directory of prebuilt programs (pi-rpc, mock-openai, mcp-testserver,
// demo, built for the platform the tests run on). make test-windows sets it: the Wine prefix
// has no Go toolchain, so internal/winetest/wine.sh builds them ahead, as it builds the test
// binaries.
const BinDirEnv = "PI_RPC_TEST_BIN"

// BuildCommand returns the path of the program named name, built from the main package pkg
// (a go build argument, relative to the test's package directory): the one in $PI_RPC_TEST_BIN
// when that is set, else one go build puts in dir.
func BuildCommand(dir, pkg, name string) (string, error) {
	name += exeSuffix()
	if pre := os.Getenv(BinDirEnv); pre != "" {
		path := filepath.Join(pre, name)
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("%s names no prebuilt %s: %w", BinDirEnv, name, err)
		}
		return path, nil
	}
	path := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", path, pkg).CombinedOutput(); err != nil { //nolint:noctx // a build the test waits for, as its go test does
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
	}
	return path, nil
}

// KeptMode is the permission bits os.Stat shows for a file given perm (by Chmod or on
// creation): perm itself, but on Windows, which keeps only a read-only flag, 0666 for a
// writable perm and 0444 for one that is not.
func KeptMode(perm os.FileMode) os.FileMode {
	if runtime.GOOS != "windows" {
		return perm
	}
	if perm&0o200 != 0 {
		return 0o666
	}
	return 0o444
}
