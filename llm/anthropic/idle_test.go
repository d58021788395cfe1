package anthropic

import (
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockanthropic"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

func pipeProvider(t *testing.T, idle time.Duration, resp mockanthropic.Response) core.Provider {
	t.Helper()
	client := providertest.PipeClient(t, mockanthropic.NewHandler(&mockanthropic.Script{Responses: []mockanthropic.Response{resp}}))
	p, err := New(Config{BaseURL: "http://mock.invalid", APIKey: "k", KeySource: "test", IdleTimeout: idle, HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// idleMock is what the mock plays in each scenario of the idle-timeout suite.
var idleMock = providertest.IdleMock[mockanthropic.Response]{
	Text: func(text string, f mockhttp.Faults) mockanthropic.Response {
		return mockanthropic.Response{Text: text, ChunkSize: 2, Faults: f}
	},
	StallAfter: 4,
	KeepAlive:  mockanthropic.Response{Events: providertest.Beats(mockanthropic.Event{DelayMs: 60_000}, mockanthropic.Event{Ping: true}, mockanthropic.Event{Text: "done"})},
}

// TestIdleTimeout runs in fake time: a silent backend fails the stream after the idle
// timeout with a retryable error naming the duration; pings, comments and a slow consumer
// do not.
func TestIdleTimeout(t *testing.T) {
	providertest.Idle[mockanthropic.Response]{
		Model: modelByID(t, "claude-sonnet-4-5"), Describe: describer,
		Mock: idleMock, Provider: pipeProvider,
		KeepAliveName: "pings keep the stream alive",
	}.Run(t)
}
