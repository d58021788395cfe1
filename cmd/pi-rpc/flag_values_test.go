package main

import (
	"io"
	"strings"
	"testing"
)

// TestFlagValueErrors: a flag with a fixed set of values names them all when given another,
// and quotes the value as given.
func TestFlagValueErrors(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"--protocol grpc", `--protocol: expected jsonrpc, pi or acp, got "grpc"`},
		{"--framing xml", `--framing: expected auto, ndjson or lsp, got "xml"`},
		{"--approval yes", `--approval: expected auto, ask or deny-writes, got "yes"`},
		{"--on-eof wait", `--on-eof: expected abort or finish, got "wait"`},
		{"--thinking max", `--thinking: expected off, minimal, low, medium, high or xhigh, got "max"`},
		{"--log-level LOUD", `--log-level: expected debug, info, warn or error, got "LOUD"`},
		{"--fsync never", `--fsync: expected settled or entry, got "never"`},
	} {
		_, err := parseFlags(strings.Fields(tc.args), io.Discard)
		if err == nil || err.Error() != tc.want {
			t.Errorf("parseFlags(%q) = %v, want %s", tc.args, err, tc.want)
		}
	}
	for _, args := range []string{"--log-level WARN", "--approval ask", "--thinking off", "--framing lsp"} {
		if _, err := parseFlags(strings.Fields(args), io.Discard); err != nil {
			t.Errorf("parseFlags(%q) = %v, want no error", args, err)
		}
	}
}
