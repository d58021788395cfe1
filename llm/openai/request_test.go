package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// conversation has images, tool results, thinking from this model and from another one, an
// errored reply, a call without a result, and ids OpenAI would reject.
func conversation() []core.Message {
	png := "iVBORw0KGgoAAAANSUhEUg=="
	return []core.Message{
		core.NewUserMessage("What is in a.png?", []core.Content{core.ImageBlock(png, "image/png")}, 1),
		&core.AssistantMessage{
			API: API, Provider: "openai", Model: "o4-mini", StopReason: core.StopReasonToolUse, Timestamp: 2,
			Content: []core.Content{
				{Type: core.ContentThinking, Thinking: "I should read the file.", ThinkingSignature: "reasoning_content"},
				core.TextBlock("Reading it."),
				core.ToolCallBlock("call_1|fc_abc", "read", map[string]any{"path": "a.png"}),
			},
		},
		&core.ToolResultMessage{ToolCallID: "call_1|fc_abc", ToolName: "read", Timestamp: 3,
			Content: []core.Content{core.TextBlock("Read image file [image/png]"), core.ImageBlock(png, "image/png")}},
		&core.AssistantMessage{
			API: API, Provider: "openrouter", Model: "deepseek/deepseek-r1", StopReason: core.StopReasonToolUse, Timestamp: 4,
			Content: []core.Content{
				{Type: core.ContentThinking, Thinking: "A red square.", ThinkingSignature: "reasoning"},
				core.TextBlock("It is a red square. Listing the directory."),
				core.ToolCallBlock("toolu_01.ABC:def", "ls", map[string]any{}),
			},
		},
		// Only a tool call, read from a session file: content is null, and the arguments go
		// back in the model's key order.
		decodeMessage(`{"role":"assistant","content":[{"type":"toolCall","id":"call_3","name":"grep","arguments":{"pattern":"red","glob":"*.png"}}],"api":"openai-completions","provider":"openai","model":"o4-mini","stopReason":"toolUse","timestamp":4}`),
		&core.ToolResultMessage{ToolCallID: "call_3", ToolName: "grep", Timestamp: 4,
			Content: []core.Content{core.TextBlock("a.png")}},
		&core.AssistantMessage{
			API: API, Provider: "openai", Model: "o4-mini", StopReason: core.StopReasonError, ErrorMessage: "500 boom", Timestamp: 5,
			Content: []core.Content{core.TextBlock("partial")},
		},
		core.NewUserMessage("Now describe it in one word.", nil, 6),
	}
}

func decodeMessage(s string) core.Message {
	m, err := core.DecodeMessage([]byte(s))
	if err != nil {
		panic(err)
	}
	return m
}

func TestRequestGolden(t *testing.T) {
	textOnly := core.Model{ID: "local-model", Name: "local", API: API, Provider: "ollama", Input: []string{"text"}, ContextWindow: 32768, MaxTokens: 8192}
	temp := 0.2
	tests := []struct {
		name    string
		baseURL string
		req     core.Request
	}{
		{
			name: "vision_reasoning", baseURL: "https://api.openai.com/v1",
			req: core.Request{
				Model: modelByID(t, "o4-mini"), SystemPrompt: "You are pi.", Messages: conversation(),
				Tools:         []core.ToolSpec{{Name: "read", Description: "Read a file", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"number"}},"required":["path"]}`)}},
				ThinkingLevel: core.ThinkingHigh, SessionID: "0196f7a2-session",
			},
		},
		{
			name: "text_only_no_tools", baseURL: "http://127.0.0.1:11434/v1",
			req: core.Request{Model: textOnly, SystemPrompt: "You are pi.", Messages: conversation(), ThinkingLevel: core.ThinkingHigh, MaxTokens: 1000, Temperature: &temp, SessionID: "s"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ct := capturer.Capture(t, llm.Endpoint{BaseURL: tc.baseURL, APIKey: "k", KeySource: "test"}, &tc.req)
			providertest.GoldenRequest(t, tc.name, append(providertest.IndentJSON(t, ct.Body), '\n'))
		})
	}
}

// requestBody streams req through a provider and returns the request body it sent.
func requestBody(t *testing.T, req *core.Request) []byte {
	t.Helper()
	return capturer.Capture(t, llm.Endpoint{BaseURL: "http://127.0.0.1:1/v1"}, req).Body
}

// streamToolCall streams a tool call whose arguments arrive as fragments and returns the
// finished message, as the agent stores it.
func streamToolCall(t *testing.T, fragments ...string) *core.AssistantMessage {
	t.Helper()
	model := modelByID(t, "gpt-4.1")
	var final *core.AssistantMessage
	b := core.NewMessageBuilder(&model, 1, func(ev core.AssistantEvent) bool {
		if ev.Type == core.EventDone {
			final = ev.Partial
		}
		return true
	})
	for _, f := range fragments {
		b.ToolCall(0, "call_1", "edit", f)
	}
	b.SetStopReason(core.StopReasonToolUse)
	b.Done()
	return final
}

// What goes back to the model is what it produced and was told: its tool-call arguments in
// its own key order and spacing compacted (also after a round trip through a session file),
// the tool schema's properties in declared order, and content null beside tool calls alone.
func TestRequestKeepsModelOrder(t *testing.T) {
	streamed := streamToolCall(t, `{"z": 1, "a": `, `"x < y && z",`, ` "m": [2, {"q": 1, "b": 2}]}`)
	const wantArgs = `{"z":1,"a":"x < y && z","m":[2,{"q":1,"b":2}]}`
	if got := streamed.Content[0].ArgumentsJSON(); got != wantArgs {
		t.Fatalf("streamed arguments text %s, want %s", got, wantArgs)
	}
	line, err := json.Marshal(streamed)
	if err != nil {
		t.Fatal(err)
	}
	reloaded := decodeMessage(string(line)).(*core.AssistantMessage)
	if got := reloaded.Content[0].ArgumentsJSON(); got != wantArgs {
		t.Fatalf("reloaded arguments text %s, want %s (session line %s)", got, wantArgs, line)
	}
	if reloaded.Content[0].Arguments["a"] != "x < y && z" {
		t.Fatalf("reloaded arguments %v", reloaded.Content[0].Arguments)
	}
	for name, msg := range map[string]*core.AssistantMessage{"streamed": streamed, "reloaded": reloaded} {
		t.Run(name, func(t *testing.T) {
			body := requestBody(t, &core.Request{
				Model: modelByID(t, "gpt-4.1"),
				Messages: []core.Message{
					core.NewUserMessage("edit it", nil, 1), msg,
					&core.ToolResultMessage{ToolCallID: "call_1", ToolName: "edit", Content: []core.Content{core.TextBlock("done")}, Timestamp: 2},
				},
				Tools: []core.ToolSpec{{Name: "edit", Parameters: []byte(`{"type":"object","properties":{"z":{"type":"number"},"a":{"type":"string"}},"required":["z"]}`)}},
			})
			var sent struct {
				Messages []map[string]json.RawMessage `json:"messages"`
				Tools    []struct {
					Function struct {
						Parameters json.RawMessage `json:"parameters"`
					} `json:"function"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(body, &sent); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			a := sent.Messages[1]
			if c, ok := a["content"]; !ok || string(c) != "null" {
				t.Errorf("assistant content = %s (present %v), want null", c, ok)
			}
			var calls []struct {
				Function struct{ Arguments string } `json:"function"`
			}
			if err := json.Unmarshal(a["tool_calls"], &calls); err != nil || len(calls) != 1 {
				t.Fatalf("tool_calls %s: %v", a["tool_calls"], err)
			}
			if got := calls[0].Function.Arguments; got != wantArgs {
				t.Errorf("arguments sent %s, want %s", got, wantArgs)
			}
			const wantSchema = `{"type":"object","properties":{"z":{"type":"number"},"a":{"type":"string"}},"required":["z"]}`
			if got := string(sent.Tools[0].Function.Parameters); got != wantSchema {
				t.Errorf("parameters sent %s, want %s", got, wantSchema)
			}
		})
	}
}

// Arguments built in code (no model text) are sent as JSON.stringify writes them; a tool
// schema that is not a JSON object fails the request with a clear error.
func TestRequestArgumentsAndSchemaEdges(t *testing.T) {
	c := core.ToolCallBlock("c", "bash", map[string]any{"command": "a && b <x>"})
	if got, want := c.ArgumentsJSON(), `{"command":"a && b <x>"}`; got != want {
		t.Errorf("ArgumentsJSON = %s, want %s", got, want)
	}
	for _, params := range []string{`[1]`, `{"type":`, `  `} {
		ct := capturer.Transport()
		p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: "http://127.0.0.1:1/v1", IdleTimeout: -1, HTTPClient: &http.Client{Transport: ct}}})
		if err != nil {
			t.Fatal(err)
		}
		_, final := run(t, context.Background(), p, &core.Request{Model: modelByID(t, "gpt-4.1"),
			Messages: []core.Message{core.NewUserMessage("hi", nil, 1)},
			Tools:    []core.ToolSpec{{Name: "bad", Parameters: []byte(params)}}})
		if final.StopReason != core.StopReasonError || !strings.Contains(final.ErrorMessage, "tool bad: parameters are not a JSON object") {
			t.Errorf("parameters %q: stop %s error %q, want the request to fail", params, final.StopReason, final.ErrorMessage)
		}
		if ct.Body != nil {
			t.Errorf("parameters %q: a request was sent", params)
		}
	}
}
