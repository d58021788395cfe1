package anthropic

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockanthropic"
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
// every option explicit (nothing comes from ANTHROPIC_*).
func newMockProvider(t *testing.T, cfg Config, responses ...mockanthropic.Response) (*Provider, *mockanthropic.Server) {
	t.Helper()
	srv := mockanthropic.New(&mockanthropic.Script{Responses: responses})
	return providertest.MockProvider(t, cfg.Endpoint, srv, newFromEndpoint), srv
}

func newFromEndpoint(e llm.Endpoint) (*Provider, error) { return New(Config{Endpoint: e}) }

// capturer records the requests this provider sends, answering with a minimal stream.
var capturer = providertest.Capturer[*Provider]{New: newFromEndpoint,
	SSE: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1}}}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"}

// mock is this provider and its mock as the shared suites see them: Anthropic's stream
// has message_start, ping and content_block_start before the first text delta; pings keep
// a silent stream alive.
func mock(t testing.TB) providertest.Mock[mockanthropic.Response] {
	return providertest.Mock[mockanthropic.Response]{
		Model: modelByID(t, "claude-sonnet-4-5"), Describe: describer,
		New:    func(e llm.Endpoint) (core.Provider, error) { return newFromEndpoint(e) },
		Server: mockanthropic.NewHandler,
		Text: func(text string, f mockhttp.Faults) mockanthropic.Response {
			return mockanthropic.Response{Text: text, ChunkSize: 2, Faults: f}
		},
		Preamble: 3,
		NoKeys: []providertest.NoKey[mockanthropic.Response]{
			{Name: "none configured", Resp: mockanthropic.AuthError(), Header: "X-Api-Key",
				Want: "401 authentication_error: invalid x-api-key (no API key was configured)"},
			{Name: "the empty setting is named", Resp: mockanthropic.AuthError(), KeySource: "ANTHROPIC_API_KEY", Header: "X-Api-Key",
				Want: "401 authentication_error: invalid x-api-key (no API key was sent: ANTHROPIC_API_KEY is not set)"},
		},
		KeepAlive:     mockanthropic.Response{Events: providertest.Beats(mockanthropic.Event{DelayMs: 60_000}, mockanthropic.Event{Ping: true}, mockanthropic.Event{Text: "done"})},
		KeepAliveName: "pings keep the stream alive",
	}
}

func hiRequest(t testing.TB, model string) *core.Request {
	return providertest.HiRequest(modelByID(t, model))
}

// describer renders Anthropic's events: the plain describer.
var describer = providertest.Describer{}

// run streams one request and returns the events as describer renders them, and the
// final message.
var run = describer.Run
