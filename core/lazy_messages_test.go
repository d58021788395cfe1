package core_test

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

// A transcript set by SetMessagesFunc is made the first time it is needed, once: Status and
// the setters never make it; State, Messages, AppendMessage and a run do.
func TestSetMessagesFuncLoadsOnFirstUse(t *testing.T) {
	h := newHarness(t, core.Options{}, faux.Reply(faux.Text("answer")))
	loads := 0
	old := core.NewUserMessage("earlier", nil, 1)
	h.agent.SetMessagesFunc(func() []core.Message { loads++; return []core.Message{old} })
	h.agent.SetThinkingLevel(core.ThinkingLow)
	if st := h.agent.Status(); loads != 0 || st.Messages != nil || st.ThinkingLevel != core.ThinkingLow {
		t.Fatalf("Status: %d loads, messages %v, thinking %s", loads, st.Messages, st.ThinkingLevel)
	}
	msgs := h.prompt("now")
	if loads != 1 || len(msgs) != 2 {
		t.Fatalf("the run: %d loads, %d new messages", loads, len(msgs))
	}
	if got := h.agent.Messages(); len(got) != 3 || got[0] != old {
		t.Fatalf("transcript after the run: %d messages, first %v", len(got), got[0])
	}
	if len(h.model.Requests()) != 1 || len(h.model.Requests()[0].Messages) != 2 {
		t.Fatalf("the model saw %d messages, want the loaded one and the prompt", len(h.model.Requests()[0].Messages))
	}
	h.agent.State()
	if loads != 1 {
		t.Fatalf("%d loads, want 1", loads)
	}
}

func TestSetMessagesFuncIsReplacedAndAppendedTo(t *testing.T) {
	a := core.New(core.Options{})
	loads := 0
	a.SetMessagesFunc(func() []core.Message { loads++; return []core.Message{&core.UserMessage{}} })
	a.SetMessages(nil)
	if len(a.Messages()) != 0 || loads != 0 {
		t.Fatalf("SetMessages did not replace the lazy transcript: %d loads", loads)
	}
	a.SetMessagesFunc(func() []core.Message { loads++; return []core.Message{&core.UserMessage{}} })
	if err := a.Reset(); err != nil || len(a.State().Messages) != 0 || loads != 0 {
		t.Fatalf("Reset did not drop the lazy transcript: %v, %d loads", err, loads)
	}
	a.SetMessagesFunc(func() []core.Message { loads++; return []core.Message{&core.UserMessage{}} })
	a.AppendMessage(&core.CustomMessage{CustomType: "note"})
	if got := a.Messages(); loads != 1 || len(got) != 2 {
		t.Fatalf("AppendMessage: %d loads, %d messages, want the loaded one and the appended one", loads, len(got))
	}
}
