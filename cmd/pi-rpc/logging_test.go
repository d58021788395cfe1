package main

import (
	stdlog "log"
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

// What a library prints with the standard log package becomes a debug event of pi-rpc's log,
// never a raw stderr line.
func TestLibraryLogIsCaptured(t *testing.T) {
	var buf strings.Builder
	restore := captureLibraryLog(zerolog.New(&buf).Level(zerolog.DebugLevel))
	stdlog.Printf("Error unexpected EOF")
	restore()
	want := `{"level":"debug","source":"library","message":"Error unexpected EOF"}` + "\n"
	if buf.String() != want {
		t.Fatalf("log = %q, want %q", buf.String(), want)
	}
	var quiet strings.Builder
	restore = captureLibraryLog(zerolog.New(&quiet).Level(zerolog.WarnLevel))
	stdlog.Printf("Both GOOGLE_API_KEY and GEMINI_API_KEY are set.")
	restore()
	if quiet.Len() != 0 {
		t.Fatalf("a library line reached a warn-level log: %q", quiet.String())
	}
}
