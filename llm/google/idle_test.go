package google

import (
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

func pipeProvider(t *testing.T, idle time.Duration, resp mockgoogle.Response) core.Provider {
	t.Helper()
	client := providertest.PipeClient(t, mockgoogle.NewHandler(&mockgoogle.Script{Responses: []mockgoogle.Response{resp}}))
	p, err := New(Config{BaseURL: "http://mock.invalid", APIKey: "k", KeySource: "test", IdleTimeout: idle, HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// idleMock is what the mock plays in each scenario of the idle-timeout suite.
var idleMock = providertest.IdleMock[mockgoogle.Response]{
	Text: func(text string, f mockhttp.Faults) mockgoogle.Response {
		return mockgoogle.Response{Text: text, ChunkSize: 2, Faults: f}
	},
	StallAfter: 1,
	KeepAlive:  mockgoogle.Response{Events: providertest.Beats(mockgoogle.Event{DelayMs: 60_000}, mockgoogle.Event{Text: "."}, mockgoogle.Event{Text: "done"})},
}

// TestIdleTimeout runs in fake time: a silent backend fails the stream after the idle
// timeout with a retryable error naming the duration; chunks slower than it and a slow
// consumer do not.
func TestIdleTimeout(t *testing.T) {
	providertest.Idle[mockgoogle.Response]{
		Model: modelByID(t, "gemini-2.5-flash"), Describe: describer,
		Mock: idleMock, Provider: pipeProvider,
		KeepAliveName: "chunks keep the stream alive",
		CheckKeepAlive: func(t *testing.T, got []string) {
			if last := got[len(got)-1]; last != "done stop" || len(got) != 15 {
				t.Errorf("events = %v, want 11 deltas and done", got)
			}
		},
	}.Run(t)
}
