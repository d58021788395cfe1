package google

import (
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// modelByID returns a catalogue model.
func modelByID(t testing.TB, id string) core.Model {
	t.Helper()
	return providertest.ModelByID(t, Catalogue(), id)
}

// newMockProvider starts a mock server for responses and a provider pointed at it, with
// every option explicit (nothing comes from GEMINI_API_KEY or GOOGLE_API_KEY).
func newMockProvider(t *testing.T, cfg Config, responses ...mockgoogle.Response) (*Provider, *mockgoogle.Server) {
	t.Helper()
	if cfg.Clock == nil {
		cfg.Clock = testkit.Fixed(time.UnixMilli(1700000000000)) // steady tool-call ids
	}
	srv := mockgoogle.New(&mockgoogle.Script{Responses: responses})
	return providertest.MockProvider(t, cfg.Endpoint, srv, newFromEndpoint), srv
}

func newFromEndpoint(e llm.Endpoint) (*Provider, error) { return New(Config{Endpoint: e}) }

// capturer records the requests this provider sends, answering with a minimal stream.
var capturer = providertest.Capturer[*Provider]{New: newFromEndpoint,
	SSE: "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":1,\"candidatesTokenCount\":1,\"totalTokenCount\":2}}\r\n\r\n"}

// mock is this provider and its mock as the shared suites see them: Gemini's first chunk
// already holds the first text; chunks keep a slow stream alive.
func mock(t testing.TB) providertest.Mock[mockgoogle.Response] {
	return providertest.Mock[mockgoogle.Response]{
		Model: modelByID(t, "gemini-2.5-flash"), Describe: describer,
		New:    func(e llm.Endpoint) (core.Provider, error) { return newFromEndpoint(e) },
		Server: mockgoogle.NewHandler,
		Text: func(text string, f mockhttp.Faults) mockgoogle.Response {
			return mockgoogle.Response{Text: text, ChunkSize: 2, Faults: f}
		},
		NoKeys: []providertest.NoKey[mockgoogle.Response]{{
			Name: "none configured", Header: "X-Goog-Api-Key",
			Resp: mockgoogle.Response{Faults: mockhttp.Faults{Status: 403}, Error: &mockgoogle.ErrorBody{Code: 403, Status: "PERMISSION_DENIED", Message: "Method doesn't allow unregistered callers."}},
			Want: "403 PERMISSION_DENIED: Method doesn't allow unregistered callers. (no API key was configured: set GEMINI_API_KEY or GOOGLE_API_KEY)",
		}},
		KeepAlive:     mockgoogle.Response{Events: providertest.Beats(mockgoogle.Event{DelayMs: 60_000}, mockgoogle.Event{Text: "."}, mockgoogle.Event{Text: "done"})},
		KeepAliveName: "chunks keep the stream alive",
		CheckKeepAlive: func(t *testing.T, got []string) {
			if last := got[len(got)-1]; last != "done stop" || len(got) != 15 {
				t.Errorf("events = %v, want 11 deltas and done", got)
			}
		},
	}
}

func hiRequest(t testing.TB, model string) *core.Request {
	return providertest.HiRequest(modelByID(t, model))
}

// describer renders Gemini's events, with the thought signatures of finished calls.
var describer = providertest.Describer{Signatures: true}

// run streams one request and returns the events as describer renders them, and the
// final message.
var run = describer.Run
