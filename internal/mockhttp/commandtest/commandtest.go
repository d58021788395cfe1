// Package commandtest holds the tests every mock command (cmd/mock-google, cmd/mock-anthropic)
// shares for its [mockhttp.Command] line: --help and the one-line flag errors. Only tests
// import it; cmd/mock-openai keeps its own for now.
package commandtest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// Help checks that --help exits 0 with nothing on stderr and prints the usage, both flags,
// the script format and each of want.
func Help(t *testing.T, c mockhttp.Command, want ...string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := c.Run([]string{"--help"}, nil, &out, &errOut); code != 0 || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	for _, w := range append([]string{"Usage:", "-script", "-addr", "Script format", `"responses"`}, want...) {
		if !strings.Contains(out.String(), w) {
			t.Errorf("help lacks %q:\n%s", w, out.String())
		}
	}
}

// FlagErrors checks the command's exit code and one-line error, naming the command, for an
// unknown flag, a missing --script, a script file that does not exist, and one that is not a
// script (whose decode error comes before the address is checked).
func FlagErrors(t *testing.T, c mockhttp.Command) {
	t.Helper()
	name := c.Name
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, name + ": flag provided but not defined: -nope (see " + name + " --help)\n"},
		{nil, name + ": --script is required (see " + name + " --help)\n"},
		{[]string{"--script", "/nonexistent/s.json"}, name + ": open /nonexistent/s.json: no such file or directory\n"},
		{[]string{"--script", "/dev/null", "--addr", "0.0.0.0:0"}, ""},
	} {
		var out, errOut bytes.Buffer
		code := c.Run(tc.args, nil, &out, &errOut)
		if tc.want == "" {
			// /dev/null is not a script: the decode error names it; the address check is not reached.
			if code != 1 || !strings.Contains(errOut.String(), "/dev/null") {
				t.Errorf("%v: exit %d, stderr %q", tc.args, code, errOut.String())
			}
			continue
		}
		if code != 1 || out.Len() != 0 || errOut.String() != tc.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1, nothing, %q", tc.args, code, out.String(), errOut.String(), tc.want)
		}
	}
}
