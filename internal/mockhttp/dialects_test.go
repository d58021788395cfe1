package mockhttp_test

import (
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockanthropic"
	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// TestDialectScriptsRejectUnknownFields: each dialect's ParseScript names the line of an
// unknown field, so a typo does not silently change a test.
func TestDialectScriptsRejectUnknownFields(t *testing.T) {
	for _, tc := range []struct {
		dialect    string
		parse      func([]byte) error
		src, field string
	}{
		{"openai", errOf(mockopenai.ParseScript), "{\"responses\": [\n  {\"txet\": \"typo\"}\n]}", "txet"},
		{"anthropic", errOf(mockanthropic.ParseScript), "{\"responses\": [\n  {\"txet\": \"typo\"}\n]}", "txet"},
		{"google", errOf(mockgoogle.ParseScript), "{\"responses\": [\n {\"txt\": \"hi\"}]}", "txt"},
	} {
		if err := tc.parse([]byte(tc.src)); err == nil || !strings.HasPrefix(err.Error(), "line 2: ") || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: got %v, want an error on line 2 naming the unknown field", tc.dialect, err)
		}
	}
}

// errOf is parse's error alone.
func errOf[S any](parse func([]byte) (S, error)) func([]byte) error {
	return func(b []byte) error { _, err := parse(b); return err }
}
