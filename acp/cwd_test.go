package acp

import (
	"encoding/json"
	"runtime"
)

// testCwd is the absolute directory the tests give session/new as its cwd (it need not
// exist): /w, or C:\w on Windows, where /w is not absolute.
var testCwd = func() string {
	if runtime.GOOS == "windows" {
		return `C:\w`
	}
	return "/w"
}()

// testCwdJSON is testCwd as a JSON string, for requests written out by hand.
func testCwdJSON() string {
	b, _ := json.Marshal(testCwd)
	return string(b)
}
