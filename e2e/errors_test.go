package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockanthropic"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// localModels is a models.json whose provider local lists only m1, with its key in
// $PI_RPC_LOCAL_KEY.
const localModels = `{"providers": {"local": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "apiKey": "$PI_RPC_LOCAL_KEY", "models": [{"id": "m1"}]}}}`

// startupError runs pi-rpc with args, which must exit 1 before reading stdin and without
// writing stdout, and returns its stderr.
func startupError(t *testing.T, args ...string) string {
	t.Helper()
	p := start(t, options{args: args})
	if code := p.waitExit(); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	p.closeStdin()
	if p.wait(); len(p.history()) != 0 {
		t.Errorf("stdout not empty: %v", p.history())
	}
	return p.stderrAll()
}

// TestModelNotInProvider: --model local/m2, where models.json's local lists only m1, stops
// the start with a message naming the provider, its file and its models (it used to start
// with "No model provider is configured").
func TestModelNotInProvider(t *testing.T) {
	models := writeFile(t, t.TempDir(), "models.json", localModels)
	stderr := startupError(t, "--models", models, "--model", "local/m2")
	want := `pi-rpc: --model: provider "local" (` + models + `) has no model "m2"; its models: m1`
	if strings.TrimSpace(stderr) != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
}

// TestModelsFileErrorListsUnknownKeys: when models.json cannot be used, its unknown keys
// are shown with the error (the misspelt "idd" is why "id" is missing).
func TestModelsFileErrorListsUnknownKeys(t *testing.T) {
	models := writeFile(t, t.TempDir(), "models.json", "{\"providers\": {\"local\": {\"baseUrl\": \"http://127.0.0.1:1/v1\", \"api\": \"openai-completions\",\n  \"models\": [{\"idd\": \"m1\"}]}}}\n")
	stderr := startupError(t, "--models", models)
	want := "pi-rpc: " + models + ":2: field providers.local.models[0].id: required\n" + models + ":2: unknown key providers.local.models[0].idd (ignored)"
	if strings.TrimSpace(stderr) != want {
		t.Errorf("stderr =\n%s\nwant\n%s", stderr, want)
	}
}

// TestNamedModelWithoutKey: a model named with --model whose provider has no key starts,
// and initialize's problem and prompt's error name that provider's key setting.
func TestNamedModelWithoutKey(t *testing.T) {
	models := writeFile(t, t.TempDir(), "models.json", localModels)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"Claude model", []string{"--model", "claude-haiku-4-5"}, "No API key for Anthropic: set ANTHROPIC_API_KEY (or set ANTHROPIC_BASE_URL for a server that needs none)"},
		{"OpenAI model", []string{"--model", "gpt-4.1-mini"}, "No API key for OpenAI: set OPENAI_API_KEY (or pass --base-url for a server that needs none)"},
		{"models.json model", []string{"--models", models, "--model", "local/m1"},
			`No API key for provider local: apiKey "$PI_RPC_LOCAL_KEY" in ` + models + `: environment variable PI_RPC_LOCAL_KEY is not set`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, options{args: append([]string{"--no-session"}, tc.args...)})
			var init problemsResult
			p.result("initialize", nil, &init)
			if len(init.Problems) != 1 || init.Problems[0].Kind != "noApiKey" || init.Problems[0].Message != tc.want {
				t.Errorf("initialize problems = %+v, want one noApiKey %q", init.Problems, tc.want)
			}
			if e := p.callError("prompt", map[string]any{"message": "hi"}, codeNoProvider, "providerNotConfigured"); e.Message != tc.want {
				t.Errorf("prompt error %q, want %q", e.Message, tc.want)
			}
		})
	}
}

// warnLines returns stderr's warn lines about failed provider requests, decoded.
func warnLines(t *testing.T, stderr string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(stderr, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		if msg, _ := m["message"].(string); m["level"] == "warn" && strings.HasPrefix(msg, "provider request failed") {
			out = append(out, m)
		}
	}
	return out
}

// TestProviderFailuresInLog: against the mock OpenAI and Anthropic servers, a 500 that a
// retry recovers from and a final 401 each put a warn line on stderr (at the default log
// level) with the request's URL, the status and the provider's message; the retry's line
// has its attempt and delay. The Anthropic server is named by ANTHROPIC_BASE_URL with no key
// set, so its 401 says no key was sent rather than that ANTHROPIC_API_KEY gave one.
func TestProviderFailuresInLog(t *testing.T) {
	openaiMock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{
		{Faults: mockhttp.Faults{Status: 500, RetryAfter: "0"}, Error: &mockopenai.ErrorBody{Message: "The server had an error while processing your request"}},
		{Text: "recovered"},
		{Faults: mockhttp.Faults{Status: 401}, Error: &mockopenai.ErrorBody{Message: "Incorrect API key provided", Code: "invalid_api_key"}},
	}})
	t.Cleanup(openaiMock.Close)
	anthropicMock := newAnthropicMock(t,
		mockanthropic.Response{Faults: mockhttp.Faults{Status: 500, RetryAfter: "0"}, Error: &mockanthropic.ErrorBody{Type: "api_error", Message: "Internal server error"}},
		mockanthropic.Response{Text: "recovered"},
		mockanthropic.AuthError(),
	)
	tests := []struct {
		name         string
		o            options
		url          string
		first, final string
	}{
		{"openai", options{mock: openaiMock}, openaiMock.URL() + "/chat/completions",
			"500 The server had an error while processing your request", "401 Incorrect API key provided (API key from OPENAI_API_KEY)"},
		{"anthropic", options{args: []string{"--model", "claude-sonnet-4-5"}, env: []string{"ANTHROPIC_BASE_URL=" + anthropicMock.URL()}}, anthropicMock.URL() + "/v1/messages",
			"500 api_error: Internal server error", "401 authentication_error: invalid x-api-key (no API key was sent: ANTHROPIC_API_KEY is not set)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.args = append(tc.o.args, "--no-session")
			p := start(t, tc.o)
			p.result("prompt", map[string]any{"message": "hi"}, &inputResult{})
			if s := settledOf(t, p.event("agent_settled")); s.Error != nil {
				t.Fatalf("first period failed: %+v", s.Error)
			}
			p.result("prompt", map[string]any{"message": "again"}, &inputResult{})
			if s := settledOf(t, p.event("agent_settled")); s.Error == nil || s.Error.Kind != "auth" || s.Error.Message != tc.final {
				t.Fatalf("second period's error %+v, want auth %q", s.Error, tc.final)
			}
			p.closeStdin()
			if code := p.wait(); code != 0 {
				t.Fatalf("exit code %d", code)
			}
			lines := warnLines(t, p.stderrAll())
			if len(lines) != 2 {
				t.Fatalf("provider failure lines on stderr: %v, want 2", lines)
			}
			retry, final := lines[0], lines[1]
			if retry["message"] != "provider request failed; retrying" || retry["url"] != tc.url || retry["status"] != float64(500) ||
				retry["error"] != tc.first || retry["attempt"] != float64(1) || retry["delayMs"] != float64(0) {
				t.Errorf("retry line %v: want url %s, status 500, error %q, attempt 1, delayMs 0", retry, tc.url, tc.first)
			}
			if final["message"] != "provider request failed" || final["url"] != tc.url || final["status"] != float64(401) ||
				final["error"] != tc.final || final["kind"] != "auth" {
				t.Errorf("final line %v: want url %s, status 401, error %q, kind auth", final, tc.url, tc.final)
			}
		})
	}
}
