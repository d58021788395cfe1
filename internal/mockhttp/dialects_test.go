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
	const typo = "{\"responses\": [\n  {\"txet\": \"typo\"}\n]}"
	rejectsUnknownField(t, "openai", mockopenai.ParseScript, typo, "txet")
	rejectsUnknownField(t, "anthropic", mockanthropic.ParseScript, typo, "txet")
	rejectsUnknownField(t, "google", mockgoogle.ParseScript, "{\"responses\": [\n {\"txt\": \"hi\"}]}", "txt")
}

// rejectsUnknownField checks that parse fails on src with an error on line 2 naming field.
func rejectsUnknownField[S any](t *testing.T, dialect string, parse func([]byte) (S, error), src, field string) {
	t.Helper()
	if _, err := parse([]byte(src)); err == nil || !strings.HasPrefix(err.Error(), "line 2: ") || !strings.Contains(err.Error(), field) {
		t.Errorf("%s: got %v, want an error on line 2 naming the unknown field", dialect, err)
	}
}
