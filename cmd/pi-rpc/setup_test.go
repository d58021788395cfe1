package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/llm/anthropic"
	"github.com/pi-rpc/pi-rpc/llm/openai"
)

func writeModels(t *testing.T, path, provider, model string) {
	t.Helper()
	data := `{"providers":{"` + provider + `":{"baseUrl":"http://127.0.0.1:1/v1","api":"openai-completions","apiKey":"k","models":[{"id":"` + model + `"}]}}}`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// modelsFile writes a models.json holding data into a new directory and returns its path.
func modelsFile(t *testing.T, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "models.json")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Both $PI_RPC_HOME/models.json and --models are read (docs/configuration.md#modelsjson, issue 3).
func TestModelsFilesMerge(t *testing.T) {
	home, extra := t.TempDir(), filepath.Join(t.TempDir(), "extra.json")
	writeModels(t, filepath.Join(home, "models.json"), "home", "home-model")
	writeModels(t, extra, "extra", "extra-model")
	env := map[string]string{"PI_RPC_HOME": home, "OPENAI_API_KEY": "test"}
	c := &config{provider: "openai", modelsFile: extra, cwd: t.TempDir(), idleTimeout: time.Second}
	s, err := setupAgent(c, func(k string) string { return env[k] }, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range s.models.List() {
		ids = append(ids, m.ID)
	}
	for _, want := range []string{"home-model", "extra-model", "gpt-4.1"} {
		if !slices.Contains(ids, want) {
			t.Errorf("listModels lacks %s: %v", want, ids)
		}
	}
}

// A bad models.json is a startup error naming the file.
func TestModelsFileError(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"providers\": 5\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &config{provider: "openai", modelsFile: bad, cwd: t.TempDir()}
	_, err := setupAgent(c, func(k string) string { return map[string]string{"PI_RPC_HOME": t.TempDir()}[k] }, time.Now())
	if err == nil || !contains(err.Error(), "bad.json:2") {
		t.Fatalf("err = %v, want one naming bad.json:2", err)
	}
}

func contains(s, sub string) bool { return len(s) >= len(sub) && (s == sub || indexOf(s, sub) >= 0) }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// TestAnthropicSetup checks how the Anthropic provider is chosen and configured: by
// --provider anthropic, by ANTHROPIC_API_KEY alone, by a Claude model id, and by a models.json
// provider with api anthropic-messages; and that a missing key is a problem naming it.
func TestAnthropicSetup(t *testing.T) {
	models := modelsFile(t, `{"providers": {
	  "proxy": {"baseUrl": "http://127.0.0.1:1", "api": "anthropic-messages", "apiKey": "k", "models": [{"id": "claude-proxied"}]},
	  "anthropic": {"modelOverrides": {"claude-haiku-4-5": {"maxTokens": 1000}}}
	}}`)
	tests := []struct {
		name      string
		c         config
		env       map[string]string
		model     string
		anthropic bool
		problem   string
	}{
		{name: "--provider anthropic", c: config{provider: "anthropic", baseURL: "http://127.0.0.1:2"}, env: map[string]string{"ANTHROPIC_API_KEY": "a"}, model: defaultAnthropicModel, anthropic: true},
		{name: "only ANTHROPIC_API_KEY", env: map[string]string{"ANTHROPIC_API_KEY": "a"}, model: defaultAnthropicModel, anthropic: true},
		{name: "both keys default to OpenAI", env: map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}, model: defaultOpenAIModel},
		{name: "a Claude id", c: config{model: "claude-opus-4-5"}, env: map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}, model: "claude-opus-4-5", anthropic: true},
		{name: "--provider openai keeps a Claude id on the OpenAI endpoint", c: config{provider: "openai", model: "claude-opus-4-5"}, env: map[string]string{"OPENAI_API_KEY": "o"}, model: "claude-opus-4-5"},
		{name: "models.json anthropic-messages provider", c: config{model: "proxy/claude-proxied"}, model: "claude-proxied", anthropic: true},
		{name: "models.json override of a built-in Claude model", c: config{model: "claude-haiku-4-5"}, env: map[string]string{"ANTHROPIC_API_KEY": "a"}, model: "claude-haiku-4-5", anthropic: true},
		{name: "no key", c: config{provider: "anthropic"}, model: defaultAnthropicModel, anthropic: true, problem: "noApiKey: No API key for Anthropic: set ANTHROPIC_API_KEY (or pass --base-url for a server that needs none)"},
		{name: "no provider at all", model: defaultOpenAIModel, problem: "noProvider: No model provider is configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY, pass --base-url for a local server, pick a models.json provider with --model provider/id, or use --provider faux"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := checkChoice(t, tc.c, models, tc.env, tc.model, tc.problem)
			if !ok {
				return
			}
			servedBy[*anthropic.Provider](t, s, anthropic.API, tc.anthropic)
		})
	}
}

// A model the user names has a provider: without its key the problem names that provider's
// setting (the environment variable, or the models.json apiKey), not "no provider"; a
// provider/id that the models.json provider does not list stops the start naming its models.
func TestNamedModelWithoutKey(t *testing.T) {
	models := modelsFile(t, `{"providers": {"local": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "apiKey": "$PI_RPC_TEST_UNSET_KEY", "models": [{"id": "m1"}]}}}`)
	tests := []struct {
		name    string
		c       config
		env     map[string]string
		problem string
		err     string
	}{
		{name: "Claude model", c: config{model: "claude-haiku-4-5"},
			problem: "noApiKey: No API key for Anthropic: set ANTHROPIC_API_KEY (or set ANTHROPIC_BASE_URL for a server that needs none)"},
		{name: "OpenAI model", c: config{model: "gpt-4.1-mini"},
			problem: "noApiKey: No API key for OpenAI: set OPENAI_API_KEY (or pass --base-url for a server that needs none)"},
		{name: "OpenAI model with only the Anthropic key", c: config{model: "gpt-4.1-mini"}, env: map[string]string{"ANTHROPIC_API_KEY": "a"},
			problem: "noApiKey: No API key for OpenAI: set OPENAI_API_KEY (or pass --base-url for a server that needs none)"},
		{name: "Claude model with --provider anthropic", c: config{provider: "anthropic", model: "claude-opus-4-5"},
			problem: "noApiKey: No API key for Anthropic: set ANTHROPIC_API_KEY (or pass --base-url for a server that needs none)"},
		{name: "models.json provider", c: config{model: "local/m1"},
			problem: `noApiKey: No API key for provider local: apiKey "$PI_RPC_TEST_UNSET_KEY" in ` + models + `: environment variable PI_RPC_TEST_UNSET_KEY is not set`},
		{name: "model not in its models.json provider", c: config{model: "local/m2"},
			err: `--model: provider "local" (` + models + `) has no model "m2"; its models: m1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := setupIn(t, tc.c, models, tc.env)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("setupAgent error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if problems := problemLines(s); !slices.Equal(problems, []string{tc.problem}) {
				t.Errorf("problems = %q, want %q", problems, tc.problem)
			}
		})
	}
}

// A startup error after models.json was read shows the file's unknown keys too: here the
// misspelt "modls" is why local has no model m1.
func TestStartupErrorShowsUnknownKeys(t *testing.T) {
	models := modelsFile(t, "{\"providers\": {\"local\": {\"baseUrl\": \"http://127.0.0.1:1/v1\", \"api\": \"openai-completions\",\n  \"modls\": [{\"id\": \"m1\"}]}}}")
	env := map[string]string{"PI_RPC_HOME": t.TempDir()}
	c := &config{model: "local/m1", modelsFile: models, cwd: t.TempDir(), idleTimeout: time.Second}
	_, err := setupAgent(c, func(k string) string { return env[k] }, time.Now())
	want := `--model: provider "local" (` + models + `) has no model "m1": it lists no models` + "\n" + models + ":2: unknown key providers.local.modls (ignored)"
	if err == nil || err.Error() != want {
		t.Fatalf("setupAgent error = %v, want %q", err, want)
	}
}

// setModel to a model its models.json provider does not list says which models it has.
func TestResolveModelNotInProvider(t *testing.T) {
	models := filepath.Join(t.TempDir(), "models.json")
	writeModels(t, models, "local", "m1")
	env := map[string]string{"PI_RPC_HOME": t.TempDir(), "OPENAI_API_KEY": "o"}
	s, err := setupAgent(&config{modelsFile: models, cwd: t.TempDir(), idleTimeout: time.Second}, func(k string) string { return env[k] }, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.models.Resolve("local", "m2")
	if want := `provider "local" (` + models + `) has no model "m2"; its models: m1`; err == nil || err.Error() != want {
		t.Errorf("Resolve(local, m2) error = %v, want %q", err, want)
	}
}

// TestResolveAcrossProviders checks setModel's lookup: a Claude model and an OpenAI model
// each get their own provider, cached per endpoint.
func TestResolveAcrossProviders(t *testing.T) {
	env := map[string]string{"PI_RPC_HOME": t.TempDir(), "OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a"}
	s, err := setupAgent(&config{cwd: t.TempDir(), idleTimeout: time.Second}, func(k string) string { return env[k] }, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	m, p, err := s.models.Resolve("anthropic", "claude-opus-4-5")
	if _, ok := p.(*anthropic.Provider); err != nil || !ok || m.Provider != "anthropic" {
		t.Fatalf("Resolve(anthropic, claude-opus-4-5) = %v, %T, %v", m.ID, p, err)
	}
	m2, p2, err := s.models.Resolve("", "claude-sonnet-4-5")
	if err != nil || p2 != p || m2.ID != "claude-sonnet-4-5" {
		t.Errorf("second Claude model: %v, same provider %v, %v", m2.ID, p2 == p, err)
	}
	m3, p3, err := s.models.Resolve("openai", "gpt-4.1")
	if _, ok := p3.(*openai.Provider); err != nil || !ok || m3.API != openai.API {
		t.Errorf("Resolve(openai, gpt-4.1) = %v, %T, %v", m3.ID, p3, err)
	}
	if _, _, err := s.models.Resolve("openai", "claude-opus-4-5"); err == nil {
		t.Error("Resolve(openai, claude-opus-4-5) found a model")
	}
}
