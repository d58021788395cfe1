package rpc

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rs/zerolog"
)

// jsonrpc2's log formats end in "\n"; the JSON log message must not.
func TestLogAdapterTrimsNewline(t *testing.T) {
	var buf bytes.Buffer
	logAdapter{zerolog.New(&buf).Level(zerolog.DebugLevel)}.Printf("jsonrpc2: ignoring response #%s with no corresponding request\n", "7")
	var line struct {
		Level   string `json:"level"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("%v: %q", err, buf.String())
	}
	if want := "jsonrpc2: ignoring response #7 with no corresponding request"; line.Message != want || line.Level != "debug" {
		t.Errorf("logged %+v, want debug %q", line, want)
	}
}
