package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := command.Run([]string{"--help"}, nil, &out, &errOut); code != 0 || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	for _, want := range []string{"Usage:", "-script", "-addr", "Script format", `"responses"`, "thoughtSignature", "finishReason", "stallAfter"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
}

func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "mock-google: flag provided but not defined: -nope (see mock-google --help)\n"},
		{nil, "mock-google: --script is required (see mock-google --help)\n"},
		{[]string{"--script", "/nonexistent/s.json"}, "mock-google: open /nonexistent/s.json: no such file or directory\n"},
		{[]string{"--script", "/dev/null", "--addr", "0.0.0.0:0"}, ""},
	} {
		var out, errOut bytes.Buffer
		code := command.Run(tc.args, nil, &out, &errOut)
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
