package e2e_test

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// --max-sessions bounds ACP's sessions too: one session/new too many is refused with a clear
// error, the connection keeps serving (a prompt in an open session streams and ends), and a
// closed session makes room for another.
func TestACPMaxSessions(t *testing.T) {
	mock := mockOf(mockopenai.Response{Text: "still here"})
	defer mock.Close()
	p, first := startACPSession(t, mock, "--max-sessions", "2")
	p.newSession(2)
	p.request(3, "session/new", map[string]any{"cwd": p.ws, "mcpServers": []any{}})
	m := p.response(3)
	if m.Error == nil || m.Error.Code != -32600 || m.Error.Message != "too many sessions open (at most 2, see --max-sessions)" {
		t.Fatalf("third session/new: %s", m.raw)
	}
	p.request(4, "session/prompt", textPrompt(first, "hi"))
	if r := stopReason(t, p.response(4)); r != "end_turn" {
		t.Fatalf("prompt after the refusal: stopReason %q", r)
	}
	p.request(5, "session/close", map[string]any{"sessionId": first})
	if m := p.response(5); m.Error != nil {
		t.Fatalf("session/close: %s", m.raw)
	}
	p.newSession(6)
}
