package openai

import (
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

func pipeProvider(t *testing.T, idle time.Duration, resps ...mockopenai.Response) *Provider {
	t.Helper()
	client := providertest.PipeClient(t, mockopenai.NewHandler(&mockopenai.Script{Responses: resps}))
	p, err := New(Config{BaseURL: "http://mock.invalid/v1", APIKey: "k", KeySource: "test", IdleTimeout: idle, HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// idleMock is what the mock plays in each scenario of the idle-timeout suite.
var idleMock = providertest.IdleMock[mockopenai.Response]{
	Text: func(text string, f mockhttp.Faults) mockopenai.Response {
		return mockopenai.Response{Text: text, ChunkSize: 2, Faults: f}
	},
	StallAfter: 2,
	KeepAlive:  mockopenai.Response{Events: providertest.Beats(mockopenai.Event{DelayMs: 60_000}, mockopenai.Event{Comment: "OPENROUTER PROCESSING"}, mockopenai.Event{Text: "done"})},
}

// TestIdleTimeout runs in fake time: silence longer than the idle timeout fails the stream
// with a retryable error naming the duration; keep-alive comments and a slow consumer do not.
func TestIdleTimeout(t *testing.T) {
	providertest.Idle{
		Model: modelByID(t, "gpt-4.1"), Describe: describer,
		Provider: func(t *testing.T, idle time.Duration, s providertest.IdleScenario) core.Provider {
			return pipeProvider(t, idle, idleMock.Response(s))
		},
		KeepAliveName: "keep-alive comments keep the stream alive",
		CheckKeepAlive: func(t *testing.T, got []string) {
			diffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "done"`, `text_end 0 "done"`, "done stop"})
		},
	}.Run(t)
}
