package google

import (
	"context"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
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
	srv := mockgoogle.New(&mockgoogle.Script{Responses: responses})
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
	if cfg.Clock == nil {
		cfg.Clock = testkit.Fixed(time.UnixMilli(1700000000000)) // steady tool-call ids
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, srv
}

func hiRequest(t testing.TB, model string) *core.Request {
	return providertest.HiRequest(modelByID(t, model))
}

// run streams one request and returns the events described as strings, and the final
// message.
func run(t *testing.T, ctx context.Context, p core.Provider, req *core.Request) ([]string, *core.AssistantMessage) {
	t.Helper()
	return providertest.Run(t, ctx, p, req, describeEvent)
}

// describer renders Gemini's events, with the thought signatures of finished calls.
var describer = providertest.Describer{Signatures: true}

// The shared helpers, by the names this package's tests use.
var (
	describeEvent = describer.Event
	diffLines     = providertest.DiffLines
	contentJSON   = providertest.ContentJSON
)
