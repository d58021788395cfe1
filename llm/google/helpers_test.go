package google

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
	"github.com/pi-rpc/pi-rpc/llm/internal/idle"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// modelByID returns a catalogue model.
func modelByID(t testing.TB, id string) core.Model {
	t.Helper()
	for _, m := range Catalogue() {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("no catalogue model %q", id)
	return core.Model{}
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
		cfg.Clock = fixedClock{}
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, srv
}

// fixedClock is the system clock at a fixed instant, so generated tool-call ids are stable.
type fixedClock struct{ idle.SystemClock }

func (fixedClock) Now() time.Time { return time.UnixMilli(1700000000000) }

func hiRequest(t testing.TB, model string) *core.Request {
	return &core.Request{Model: modelByID(t, model), Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}}
}

// run streams one request and returns the events described as strings, and the final
// message.
func run(t *testing.T, ctx context.Context, p core.Provider, req *core.Request) ([]string, *core.AssistantMessage) {
	t.Helper()
	return providertest.Run(t, ctx, p, req, describeEvent)
}

// describeEvent renders an event compactly: type, content index, and the fields that matter.
func describeEvent(ev core.AssistantEvent) string {
	switch ev.Type {
	case core.EventStart:
		return "start"
	case core.EventTextStart, core.EventThinkingStart:
		return fmt.Sprintf("%s %d", ev.Type, ev.ContentIndex)
	case core.EventTextDelta, core.EventThinkingDelta:
		return fmt.Sprintf("%s %d %q", ev.Type, ev.ContentIndex, ev.Delta)
	case core.EventTextEnd, core.EventThinkingEnd:
		return fmt.Sprintf("%s %d %q", ev.Type, ev.ContentIndex, ev.Content)
	case core.EventToolCallStart:
		return fmt.Sprintf("%s %d id=%s name=%s", ev.Type, ev.ContentIndex, ev.ID, ev.Name)
	case core.EventToolCallDelta:
		args, _ := json.Marshal(ev.Partial.Content[ev.ContentIndex].Arguments)
		return fmt.Sprintf("%s %d %q %s", ev.Type, ev.ContentIndex, ev.Delta, args)
	case core.EventToolCallEnd:
		args, _ := json.Marshal(ev.ToolCall.Arguments)
		return fmt.Sprintf("%s %d %s %s %s sig=%q", ev.Type, ev.ContentIndex, ev.ToolCall.ID, ev.ToolCall.Name, args, ev.ToolCall.ThoughtSignature)
	case core.EventDone:
		return fmt.Sprintf("done %s", ev.Reason)
	case core.EventError:
		kind := core.ErrorKind("")
		if f := ev.Partial.Failure; f != nil {
			kind = f.Kind
		}
		return fmt.Sprintf("error %s %s: %s", ev.Reason, kind, ev.Partial.ErrorMessage)
	}
	return string(ev.Type)
}

func diffLines(t *testing.T, got, want []string) {
	t.Helper()
	providertest.DiffLines(t, got, want)
}

func contentJSON(t *testing.T, m *core.AssistantMessage) string {
	t.Helper()
	b, err := json.Marshal(m.Content)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
