package testkit

import (
	"os"
	"runtime"
)

// BinDirEnv names a directory of prebuilt programs (pi-rpc, mock-openai, mcp-testserver,
// demo, built for the platform the tests run on). make test-windows sets it: the Wine prefix
// has no Go toolchain, so internal/winetest/wine.sh builds them ahead, as it builds the test
// binaries.
const BinDirEnv = "PI_RPC_TEST_BIN"

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
