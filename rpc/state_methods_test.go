package rpc_test

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

// Methods that change state and emit at once answer before their event (rule 1); the race
// this guards against showed in a few runs of thirty, so the check repeats.
func TestStateChangesAnswerBeforeTheirEvents(t *testing.T) {
	for i := range 20 {
		model := faux.New()
		p := newPeer(t, peerOpts{models: testkit.KeylessCatalogue{Provider: model, Reasoning: true}})
		p.nextID = i * 10
		p.send(`{"jsonrpc":"2.0","id":"m","method":"setModel","params":{"modelId":"faux-1"}}` + "\n")
		if first := p.next(); first["id"] != "m" {
			t.Fatalf("run %d: first message %s, want setModel's response", i, first["raw"])
		}
		p.send(`{"jsonrpc":"2.0","id":"t","method":"setThinkingLevel","params":{"level":"high"}}` + "\n")
		for {
			m := p.next()
			if eventType(m) == "thinking_level_changed" {
				t.Fatalf("run %d: thinking_level_changed before the response", i)
			}
			if m["id"] == "t" {
				break
			}
		}
	}
}

func TestSetModelProviderProblems(t *testing.T) {
	model := faux.New()
	model.SetResponses(faux.Reply(faux.Text("hi")))
	p := newPeer(t, peerOpts{models: testkit.KeylessCatalogue{Provider: model, Reasoning: true}, problem: "No API key for OpenAI: set OPENAI_API_KEY"})
	resp := p.call("setModel", map[string]any{"modelId": "keyless"})
	if e := resp["error"].(map[string]any); e["code"] != float64(-32013) || e["data"].(map[string]any)["kind"] != "providerNotConfigured" {
		t.Fatalf("setModel to a keyless provider = %s", resp["raw"])
	}
	if resp := p.call("setModel", map[string]any{"modelId": "nope"}); resp["error"].(map[string]any)["code"] != float64(-32012) {
		t.Fatalf("setModel to an unknown model = %s", resp["raw"])
	}
	if resp := p.call("prompt", map[string]any{"message": "hi"}); resp["error"].(map[string]any)["code"] != float64(-32013) {
		t.Fatalf("prompt before a usable model = %s", resp["raw"])
	}
	p.call("setModel", map[string]any{"modelId": "faux-1"})
	if resp := p.call("prompt", map[string]any{"message": "hi"}); resp["result"] == nil {
		t.Fatalf("prompt after switching to a usable provider = %s", resp["raw"])
	}
	p.untilEvent("agent_settled")
	st := p.call("getState", nil)["result"].(map[string]any)
	if len(st["problems"].([]any)) != 0 {
		t.Fatalf("problems after switching = %v", st["problems"])
	}
}

func TestInitializeKeepsChosenApproval(t *testing.T) {
	p := newPeer(t, peerOpts{})
	p.call("setOptions", map[string]any{"approval": "deny-writes"})
	p.call("initialize", map[string]any{"capabilities": map[string]any{"permissions": true}})
	st := p.call("getState", nil)["result"].(map[string]any)
	if got := st["options"].(map[string]any)["approval"]; got != "deny-writes" {
		t.Fatalf("approval after initialize = %v, want the one setOptions chose", got)
	}
}
