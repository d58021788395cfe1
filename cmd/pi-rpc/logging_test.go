package main

import (
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// ACP mode logs at warn on stderr unless --log-level says otherwise: an editor shows an
// agent's stderr as its errors. A log file, or the other protocols, keep info.
func TestLogLevelDefault(t *testing.T) {
	cases := []struct {
		args string
		want zerolog.Level
	}{
		{"", zerolog.InfoLevel},
		{"--protocol pi", zerolog.InfoLevel},
		{"--protocol acp", zerolog.WarnLevel},
		{"--protocol acp --log-level info", zerolog.InfoLevel},
		{"--protocol acp --log-level DEBUG", zerolog.DebugLevel},
		{"--protocol acp --log-level error", zerolog.ErrorLevel},
		{"--protocol acp --log-file pi.log", zerolog.InfoLevel},
		{"--log-level warn", zerolog.WarnLevel},
	}
	for _, c := range cases {
		cfg, err := parseFlags(strings.Fields(c.args), nil)
		if err != nil {
			t.Fatalf("parseFlags(%q): %v", c.args, err)
		}
		if got := logLevel(cfg); got != c.want {
			t.Errorf("logLevel(%q) = %s, want %s", c.args, got, c.want)
		}
	}
}
