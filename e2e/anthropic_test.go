package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockanthropic"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// newAnthropicMock starts a mock Anthropic server with these responses.
func newAnthropicMock(t *testing.T, rs ...mockanthropic.Response) *mockanthropic.Server {
	t.Helper()
	m := mockanthropic.New(&mockanthropic.Script{Responses: rs})
	t.Cleanup(m.Close)
	return m
}

// anthropicOptions runs pi-rpc on the Anthropic provider against mock.
func anthropicOptions(mock *mockanthropic.Server, model, cwd string) options {
	return options{cwd: cwd, args: []string{"--provider", "anthropic", "--base-url", mock.URL(), "--model", model}, env: []string{"ANTHROPIC_API_KEY=test"}}
}

// messagesOf returns a recorded Messages request's messages.
func messagesOf(t *testing.T, body map[string]any) []map[string]any {
	t.Helper()
	return objectsAt(body, "messages")
}

// blocksOf returns a message's content blocks.
func blocksOf(m map[string]any) []map[string]any {
	return objectsAt(m, "content")
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAnthropicToolLoop runs a whole tool loop through the binary on the Anthropic wire: the
// model thinks (signed), talks and calls read; the tool runs; the second request carries the
// thinking block with its signature unchanged, the tool_use and the tool_result; the model
// answers.
func TestAnthropicToolLoop(t *testing.T) {
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("buy bread\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mock := newAnthropicMock(t,
		mockanthropic.Response{Reasoning: "I need the notes.", Signature: "EqQBCkgIsig==", Text: "Reading.",
			ToolCalls: []mockanthropic.ToolCall{{ID: "toolu_01A", Name: "read", Arguments: `{"path":"notes.txt"}`}},
			Usage:     &mockanthropic.Usage{InputTokens: 100, OutputTokens: 20, CacheReadInputTokens: 50, CacheCreationInputTokens: 10}},
		mockanthropic.Response{Text: "The notes say: buy bread."},
	)
	p := start(t, anthropicOptions(mock, "claude-sonnet-4-5", cwd))
	p.promptCompleted("What do my notes say?")
	var thinking, toolEnd bool
	for _, m := range p.history() {
		if m.isEvent() && m.typ() == "message_update" {
			ame, _ := m.ev["assistantMessageEvent"].(map[string]any)
			thinking = thinking || ame["type"] == "thinking_delta"
			toolEnd = toolEnd || ame["type"] == "toolcall_end"
		}
	}
	if !thinking || !toolEnd {
		t.Errorf("thinking_delta seen %v, toolcall_end seen %v", thinking, toolEnd)
	}
	text, _ := textDeltas(p.history())
	if !strings.Contains(text, "The notes say: buy bread.") {
		t.Errorf("streamed text = %q", text)
	}

	reqs := mock.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	first := reqs[0]
	if first.Header.Get("X-Api-Key") != "test" || first.Decoded["model"] != "claude-sonnet-4-5" || first.Decoded["stream"] != true {
		t.Errorf("first request: key %q, body model %v stream %v", first.Header.Get("X-Api-Key"), first.Decoded["model"], first.Decoded["stream"])
	}
	if sys := toJSON(first.Decoded["system"]); !strings.Contains(sys, `"cache_control":{"type":"ephemeral"}`) {
		t.Errorf("system = %s, want a cached system block", sys)
	}
	msgs := messagesOf(t, reqs[1].Decoded)
	if len(msgs) != 3 {
		t.Fatalf("second request has %d messages, want user, assistant, tool results: %s", len(msgs), toJSON(msgs))
	}
	asst := blocksOf(msgs[1])
	if len(asst) != 3 || asst[0]["type"] != "thinking" || asst[0]["signature"] != "EqQBCkgIsig==" || asst[0]["thinking"] != "I need the notes." ||
		asst[1]["text"] != "Reading." || asst[2]["type"] != "tool_use" || asst[2]["id"] != "toolu_01A" || toJSON(asst[2]["input"]) != `{"path":"notes.txt"}` {
		t.Errorf("assistant message sent back = %s", toJSON(asst))
	}
	results := blocksOf(msgs[2])
	if len(results) != 1 || results[0]["type"] != "tool_result" || results[0]["tool_use_id"] != "toolu_01A" ||
		!strings.Contains(toJSON(results[0]["content"]), "buy bread") || results[0]["cache_control"] == nil {
		t.Errorf("tool results = %s", toJSON(results))
	}
}

// TestAnthropicAbortMidStream aborts while the Anthropic mock stalls mid-reply: the run ends
// aborted and the mock sees the connection closed.
func TestAnthropicAbortMidStream(t *testing.T) {
	mock := newAnthropicMock(t, mockanthropic.Response{Text: "never finishes this sentence", ChunkSize: 4, Faults: mockhttp.Faults{StallAfter: 5}})
	abortMidStream(t, start(t, anthropicOptions(mock, "claude-haiku-4-5", "")), func() *mockhttp.Request { return mock.Requests()[0] })
}

// TestSwitchOpenAIToClaude runs a tool call on an OpenAI model, switches to a Claude model
// with setModel, and checks that the Anthropic request carries the conversation converted:
// the OpenAI reasoning as text, the tool-call id normalised to Anthropic's pattern on both
// the tool_use and its tool_result.
func TestSwitchOpenAIToClaude(t *testing.T) {
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	oai := newMock(t,
		mockopenai.Response{Reasoning: "Read a.txt first.", ToolCalls: []mockopenai.ToolCall{{ID: "call_1|fc_9", Name: "read", Arguments: `{"path":"a.txt"}`}}},
		mockopenai.Response{Text: "It says alpha."},
	)
	claude := newAnthropicMock(t, mockanthropic.Response{Text: "Agreed: alpha."})
	p := start(t, options{cwd: cwd, mock: oai, args: []string{"--model", "o4-mini"},
		env: []string{"ANTHROPIC_API_KEY=test-claude", "ANTHROPIC_BASE_URL=" + claude.URL()}})

	var models modelsResult
	p.result("listModels", nil, &models)
	providers := map[string]bool{}
	for _, m := range models.Models {
		providers[m.Provider] = true
	}
	if !providers["openai"] || !providers["anthropic"] {
		t.Fatalf("listModels providers = %v, want openai and anthropic", providers)
	}

	p.promptCompleted("What is in a.txt?")
	var sm modelResult
	p.result("setModel", map[string]any{"provider": "anthropic", "modelId": "claude-sonnet-4-5"}, &sm)
	if sm.Model.ID != "claude-sonnet-4-5" || sm.Model.API != "anthropic-messages" {
		t.Fatalf("setModel = %+v", sm)
	}
	p.promptCompleted("Do you agree?")
	reqs := claude.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("X-Api-Key") != "test-claude" {
		t.Fatalf("Anthropic requests = %d", len(reqs))
	}
	msgs := messagesOf(t, reqs[0].Decoded)
	if len(msgs) != 5 {
		t.Fatalf("messages = %s, want user, assistant, tool result, assistant, user", toJSON(msgs))
	}
	call := blocksOf(msgs[1])
	if len(call) != 2 || call[0]["type"] != "text" || call[0]["text"] != "Read a.txt first." || call[1]["type"] != "tool_use" || call[1]["id"] != "call_1_fc_9" {
		t.Errorf("converted assistant message = %s", toJSON(call))
	}
	if res := blocksOf(msgs[2]); len(res) != 1 || res[0]["tool_use_id"] != "call_1_fc_9" || !strings.Contains(toJSON(res[0]["content"]), "alpha") {
		t.Errorf("converted tool result = %s", toJSON(res))
	}
	if a := blocksOf(msgs[3]); len(a) != 1 || a[0]["text"] != "It says alpha." {
		t.Errorf("converted answer = %s", toJSON(a))
	}
}

// TestMockAnthropicCommand runs cmd/mock-openai --dialect anthropic as a process with a
// script in the format the dialects share, points pi-rpc at the URL it prints, and checks
// that it exits on stdin EOF.
func TestMockAnthropicCommand(t *testing.T) {
	runMockCommand(t, "anthropic", func(url string) options {
		return options{args: []string{"--provider", "anthropic", "--base-url", url}, env: []string{"ANTHROPIC_API_KEY=test"}}
	})
}
