package e2e_test

import (
	"slices"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// Every request read before stdin ends is answered, session/new included (it opens
// beside the reader); a session/new before initialize is refused, saying why.
func TestACPRequestsBeforeEOF(t *testing.T) {
	mock := mockOf()
	defer mock.Close()
	p := startACP(t, mock)
	newParams := map[string]any{"cwd": p.ws, "mcpServers": []any{}}
	p.request(0, "session/new", newParams)
	p.request(1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	p.request(2, "session/new", newParams)
	p.request(3, "session/new", newParams)
	if code := p.closeInput(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	answers := map[string]acpMsg{}
	opened := map[string]bool{}
	p.mu.Lock()
	wire := slices.Clone(p.wire)
	p.mu.Unlock()
	for _, m := range wire {
		switch {
		case m.Method == "" && m.ID != nil:
			answers[string(m.ID)] = m
		case m.Method == "session/update":
			sid, _ := m.update()
			opened[sid] = true
		default:
			t.Errorf("unexpected line: %s", m.raw)
		}
	}
	if len(answers) != 4 {
		t.Fatalf("%d answers to 4 requests:\n%s", len(answers), p.dump())
	}
	if m := answers["0"]; m.Error == nil || m.Error.Code != -32600 || m.Error.Message != "initialize must come first: session/new was sent before initialize" {
		t.Errorf("session/new before initialize: %s", m.raw)
	}
	if m := answers["1"]; m.Error != nil || len(m.Result) == 0 {
		t.Errorf("initialize: %s", m.raw)
	}
	first, second := sessionIDOf(t, answers["2"]), sessionIDOf(t, answers["3"])
	if first == second {
		t.Errorf("two session/new answered with one session %s", first)
	}
	for sid := range opened {
		if sid != first && sid != second {
			t.Errorf("an update of session %s, which no answer names", sid)
		}
	}
}

// session/cancel sent as a request (with an id) is answered with a null result and still
// cancels the turn, whose prompt is answered cancelled.
func TestACPCancelAsRequest(t *testing.T) {
	mock := mockOf(mockopenai.Response{Text: "a long answer", Faults: mockhttp.Faults{StallAfter: 2}})
	defer mock.Close()
	p, sid := startACPSession(t, mock)
	p.request(2, "session/prompt", textPrompt(sid, "talk"))
	p.until(func(m acpMsg) bool { return chunkText(m) == "a lo" })
	p.request(3, "session/cancel", map[string]any{"sessionId": sid})
	var cancelled, prompted bool
	for !cancelled || !prompted {
		m := p.read()
		switch {
		case m.isResponse(3):
			if m.Error != nil || string(m.Result) != "null" {
				t.Fatalf("session/cancel request: %s, want a null result", m.raw)
			}
			cancelled = true
		case m.isResponse(2):
			if r := stopReason(t, m); r != "cancelled" {
				t.Fatalf("the prompt's stopReason %q, want cancelled", r)
			}
			prompted = true
		}
	}
	if code := p.closeInput(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
