package acp

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
)

// A prompt is registered before the session sees it (its sink answers it, possibly before
// Prompt returns); one the session refuses is forgotten again, so a later
// $/cancel_request with its id finds nothing to cancel.
func TestRefusedPromptIsForgotten(t *testing.T) {
	host := session.NewHost(session.HostConfig{})
	s := NewServer(Options{Out: io.Discard, Host: host})
	defer s.w.out.Close(0)
	st := &acpSession{id: "s1", cwd: t.TempDir(), calls: map[string]*toolCall{}, rejected: map[string]bool{}, live: true}
	model := faux.New()
	st.sup = session.New(session.Config{
		Agent:           core.Options{Provider: model, Model: model.Model()},
		Store:           session.NewMemoryStore("s1", func() string { return "00000001" }, func() string { return "2026-01-01T00:00:00.000Z" }),
		Sink:            &sessionSink{w: s.w, st: st},
		IDs:             host.IDs(),
		ProviderProblem: "No API key: set OPENAI_API_KEY",
	})
	s.sessions[st.id] = st
	s.prompt(json.RawMessage(`2`), json.RawMessage(`{"sessionId":"s1","prompt":[{"type":"text","text":"x"}]}`))
	if st.hasPrompt(s.w, json.RawMessage(`2`)) {
		t.Fatal("the refused prompt is still registered")
	}
}
