package openai

import (
	"context"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
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
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL()
	if cfg.APIKey == "" {
		cfg.APIKey = "test-key"
		cfg.KeySource = "the test's Config"
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = -1
	}
	cfg.HTTPClient = srv.Client()
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, srv
}

// run streams one request and returns the events described as strings, and the final
// message.
func run(t *testing.T, ctx context.Context, p core.Provider, req *core.Request) ([]string, *core.AssistantMessage) {
	t.Helper()
	return providertest.Run(t, ctx, p, req, describe)
}

// describer renders OpenAI's events: a start that already knows the response failed says
// so, and tool-call deltas show the id and name they carry.
var describer = providertest.Describer{StartReason: true, DeltaIDs: true}

// The shared helpers, by the names this package's tests use.
var (
	describe    = describer.Event
	diffLines   = providertest.DiffLines
	contentJSON = providertest.ContentJSON
	fixture     = providertest.Fixture
)
