package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

var update = flag.Bool("update", false, "rewrite golden files")

// captureTransport records the request body and answers with a minimal stream, so request
// tests can use OpenAI's real host name without any network.
type captureTransport struct{ body []byte }

func (c *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.body, _ = io.ReadAll(req.Body)
	sse := "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(sse)), Request: req}, nil
}

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
		&core.AssistantMessage{
			API: API, Provider: "openai", Model: "o4-mini", StopReason: core.StopReasonError, ErrorMessage: "500 boom", Timestamp: 5,
			Content: []core.Content{core.TextBlock("partial")},
		},
		core.NewUserMessage("Now describe it in one word.", nil, 6),
	}
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
				Tools:         []core.ToolSpec{{Name: "read", Description: "Read a file", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
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
			ct := &captureTransport{}
			p, err := New(Config{BaseURL: tc.baseURL, APIKey: "k", KeySource: "test", IdleTimeout: -1, HTTPClient: &http.Client{Transport: ct}})
			if err != nil {
				t.Fatal(err)
			}
			_, final := run(t, context.Background(), p, &tc.req)
			if final.StopReason != core.StopReasonStop {
				t.Fatalf("stream failed: %s", final.ErrorMessage)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, ct.body, "", "  "); err != nil {
				t.Fatalf("request body is not JSON: %v\n%s", err, ct.body)
			}
			pretty.WriteByte('\n')
			path := filepath.Join("testdata", "request_"+tc.name+".golden.json")
			if *update {
				if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(pretty.Bytes(), want) {
				gl, wl := strings.Split(pretty.String(), "\n"), strings.Split(string(want), "\n")
				for i := 0; i < max(len(gl), len(wl)); i++ {
					var g, w string
					if i < len(gl) {
						g = gl[i]
					}
					if i < len(wl) {
						w = wl[i]
					}
					if g != w {
						t.Fatalf("%s line %d: got %q, want %q (run with -update after checking)", path, i+1, g, w)
					}
				}
			}
		})
	}
}
