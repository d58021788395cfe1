package openai

import (
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

func pipeProvider(t *testing.T, idle time.Duration, resp mockopenai.Response) core.Provider {
	t.Helper()
	client := providertest.PipeClient(t, mockopenai.NewHandler(&mockopenai.Script{Responses: []mockopenai.Response{resp}}))
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
	providertest.Idle[mockopenai.Response]{
		Model: modelByID(t, "gpt-4.1"), Describe: describer,
		Mock: idleMock, Provider: pipeProvider,
		KeepAliveName: "keep-alive comments keep the stream alive",
	}.Run(t)
}
