package openai

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// modelByID returns a catalogue model.
func modelByID(t testing.TB, id string) core.Model {
	t.Helper()
	return providertest.ModelByID(t, Catalogue(), id)
}

func hiRequest(t testing.TB, model string) *core.Request {
	return providertest.HiRequest(modelByID(t, model))
}

// newMockProvider starts a mock server for responses and a provider pointed at it, with
// every option explicit (nothing comes from OPENAI_*).
func newMockProvider(t *testing.T, cfg Config, responses ...mockopenai.Response) (*Provider, *mockopenai.Server) {
	t.Helper()
	srv := mockopenai.New(&mockopenai.Script{Responses: responses})
	return providertest.MockProvider(t, cfg.Endpoint, srv, func(e llm.Endpoint) (*Provider, error) {
		cfg.Endpoint = e
		return New(cfg)
	}), srv
}

func newFromEndpoint(e llm.Endpoint) (*Provider, error) { return New(Config{Endpoint: e}) }

// capturer records the requests this provider sends (Chat Completions), answering with a
// minimal stream, so request tests can use OpenAI's real host name without any network.
var capturer = providertest.Capturer[*Provider]{New: newFromEndpoint,
	SSE: "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"}

// mock is this provider (Chat Completions) and its mock as the shared suites see them: the
// stream's first chunk names the role, before the first text delta; keep-alive comments
// keep a silent stream alive.
func mock(t testing.TB) providertest.Mock[mockopenai.Response] {
	return providertest.Mock[mockopenai.Response]{
		Model: modelByID(t, "gpt-4.1"), Describe: describer,
		New:    func(e llm.Endpoint) (core.Provider, error) { return newFromEndpoint(e) },
		Server: mockopenai.NewHandler,
		Text: func(text string, f mockhttp.Faults) mockopenai.Response {
			return mockopenai.Response{Text: text, ChunkSize: 2, Faults: f}
		},
		Preamble: 1,
		NoKeys: []providertest.NoKey[mockopenai.Response]{{
			Name: "the empty setting is named", KeySource: "OPENAI_API_KEY", Header: "Authorization",
			Resp: mockopenai.Response{Faults: mockhttp.Faults{Status: 401}, Error: &mockopenai.ErrorBody{Message: "Missing bearer token"}},
			Want: "401 Missing bearer token (no API key was sent: OPENAI_API_KEY is not set)",
		}},
		KeepAlive:     mockopenai.Response{Events: providertest.Beats(mockopenai.Event{DelayMs: 60_000}, mockopenai.Event{Comment: "OPENROUTER PROCESSING"}, mockopenai.Event{Text: "done"})},
		KeepAliveName: "keep-alive comments keep the stream alive",
	}
}

// describer renders OpenAI's events: a start that already knows the response failed says
// so, and tool-call deltas show the id and name they carry.
var describer = providertest.Describer{StartReason: true, DeltaIDs: true}

// run streams one request and returns the events as describer renders them, and the
// final message.
var run = describer.Run
