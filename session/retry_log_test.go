package session_test

import (
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/llm"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockanthropic"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/anthropic"
	"github.com/pi-rpc/pi-rpc/llm/openai"
	"github.com/pi-rpc/pi-rpc/session"
)

// warnings returns the warn lines of a zerolog log, decoded.
func warnings(t *testing.T, log *testkit.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range testkit.JSONLines(t, log.String()) {
		if m["level"] == "warn" {
			out = append(out, m)
		}
	}
	return out
}

// failureLog is what a warn line about a failed provider request must say.
type failureLog struct {
	message string
	url     string
	status  float64
	error   string // a substring of the provider's message
	attempt float64
	delayMs float64
}

func checkFailureLog(t *testing.T, got map[string]any, want failureLog) {
	t.Helper()
	if got["message"] != want.message || got["url"] != want.url || got["status"] != want.status {
		t.Errorf("log line %v: want message %q, url %q, status %v", got, want.message, want.url, want.status)
	}
	if e, _ := got["error"].(string); !strings.Contains(e, want.error) {
		t.Errorf("log line %v: error lacks %q", got, want.error)
	}
	if want.attempt != 0 && (got["attempt"] != want.attempt || got["delayMs"] != want.delayMs) {
		t.Errorf("log line %v: want attempt %v, delayMs %v", got, want.attempt, want.delayMs)
	}
}

// TestProviderFailuresLogged runs the real providers against the mock servers: a 500 that
// a retry recovers from logs the retry (attempt, delay) with the request's URL, status and
// the provider's message at warn; a final 401 logs the failure the same way.
func TestProviderFailuresLogged(t *testing.T) {
	openaiMock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{
		{Faults: mockhttp.Faults{Status: 500}, Error: &mockopenai.ErrorBody{Message: "The server had an error while processing your request"}},
		{Text: "recovered"},
		{Faults: mockhttp.Faults{Status: 401}, Error: &mockopenai.ErrorBody{Message: "Incorrect API key provided", Code: "invalid_api_key"}},
	}})
	t.Cleanup(openaiMock.Close)
	anthropicMock := mockanthropic.New(&mockanthropic.Script{Responses: []mockanthropic.Response{
		{Faults: mockhttp.Faults{Status: 500}, Error: &mockanthropic.ErrorBody{Type: "api_error", Message: "Internal server error"}},
		{Text: "recovered"},
		mockanthropic.AuthError(),
	}})
	t.Cleanup(anthropicMock.Close)

	op, err := openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: openaiMock.URL(), APIKey: "k", KeySource: "OPENAI_API_KEY", IdleTimeout: -1, HTTPClient: openaiMock.Client()}})
	if err != nil {
		t.Fatal(err)
	}
	ap, err := anthropic.New(anthropic.Config{Endpoint: llm.Endpoint{BaseURL: anthropicMock.URL(), APIKey: "k", KeySource: "ANTHROPIC_API_KEY", IdleTimeout: -1, HTTPClient: anthropicMock.Client()}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		provider core.Provider
		model    core.Model
		url      string
		first    string // the 500's message
		final    string // the 401's
	}{
		{"openai", op, openai.Catalogue()[0], openaiMock.URL() + "/chat/completions", "The server had an error", "Incorrect API key provided (API key from OPENAI_API_KEY)"},
		{"anthropic", ap, anthropic.Catalogue()[0], anthropicMock.URL() + "/v1/messages", "api_error: Internal server error", "authentication_error: invalid x-api-key (API key from ANTHROPIC_API_KEY)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs := &testkit.Buffer{}
			clock := testkit.NewClock()
			sup := session.New(session.Config{
				Agent:  core.Options{Provider: tc.provider, Model: tc.model},
				Store:  session.NewMemoryStore("s-"+tc.name, func() string { return "00000001" }, func() string { return session.ISOTime(epoch) }),
				Sink:   &recordingSink{},
				Clock:  clock,
				Retry:  session.DefaultRetrySettings(),
				Logger: zerolog.New(logs),
			})
			h := &harness{t: t, sup: sup, clock: clock}

			h.prompt("hi")
			if d := <-clock.Armed; d != session.DefaultRetrySettings().BaseDelay {
				t.Fatalf("retry delay %v, want the base delay", d)
			}
			clock.Fire()
			if st := h.settle(); st.Error != nil {
				t.Fatalf("first period failed: %+v", st.Error)
			}
			warns := warnings(t, logs)
			if len(warns) != 1 {
				t.Fatalf("warn lines after a retried 500: %v, want 1", warns)
			}
			checkFailureLog(t, warns[0], failureLog{message: "provider request failed; retrying", url: tc.url, status: 500, error: tc.first, attempt: 1, delayMs: 2000})

			h.prompt("again")
			if st := h.settle(); st.Error == nil || st.Error.Kind != session.SettleErrorAuth {
				t.Fatalf("second period settled with %+v, want an auth error", st.Error)
			}
			warns = warnings(t, logs)
			if len(warns) != 2 {
				t.Fatalf("warn lines after a final 401: %v, want 2", warns)
			}
			checkFailureLog(t, warns[1], failureLog{message: "provider request failed", url: tc.url, status: 401, error: "401 " + tc.final})
			if warns[1]["kind"] != "auth" || warns[1]["model"] != tc.model.Provider+"/"+tc.model.ID {
				t.Errorf("final failure line %v: want kind auth and model %s/%s", warns[1], tc.model.Provider, tc.model.ID)
			}
		})
	}
}
