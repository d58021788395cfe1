package openai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

const goodModels = `{
  "providers": {
    "ollama": {
      "baseUrl": "http://localhost:11434/v1",
      "api": "openai-completions",
      "apiKey": "ollama",
      "compat": {"supportsDeveloperRole": false},
      "models": [
        {"id": "llama3.1:8b"},
        {"id": "gpt-oss:20b", "reasoning": true, "contextWindow": 131072, "input": ["text"], "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}
      ]
    },
    "openai": {
      "modelOverrides": {"gpt-4.1": {"contextWindow": 500000}}
    },
    "anthropic-proxy": {
      "baseUrl": "https://proxy.example/v1",
      "api": "anthropic-messages",
      "models": [{"id": "claude-x"}]
    }
  }
}`

func TestModelsFileErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"syntax", "{\n  \"providers\": {\n    \"x\": {,\n  }\n}", "m.json:3: invalid JSON"},
		{"type", "{\n  \"providers\": {\n    \"x\": {\n      \"baseUrl\": \"u\", \"api\": \"openai-completions\",\n      \"models\": [{\"id\": \"a\", \"contextWindow\": \"big\"}]\n    }\n  }\n}", "m.json:5: field providers.x.models[0].contextWindow: expected an integer, got JSON string"},
		{"missing id", "{\n  \"providers\": {\n    \"x\": {\n      \"baseUrl\": \"u\", \"api\": \"openai-completions\",\n      \"models\": [\n        {\"name\": \"a\"}\n      ]\n    }\n  }\n}", "m.json:6: field providers.x.models[0].id: required"},
		{"missing baseUrl", "{\n  \"providers\": {\n    \"x\": {\n      \"api\": \"openai-completions\",\n      \"models\": [{\"id\": \"a\"}]\n    }\n  }\n}", "m.json:3: field providers.x.baseUrl: required"},
		{"bad input", "{\"providers\": {\"x\": {\"baseUrl\": \"u\", \"api\": \"openai-completions\",\n \"models\": [{\"id\": \"a\",\n \"input\": [\"text\", \"audio\"]}]}}}", `m.json:3: field providers.x.models[0].input[1]: must be "text" or "image", got "audio"`},
		{"unknown api", "{\"providers\": {\"x\": {\"baseUrl\": \"u\",\n \"api\": \"carrier-pigeon\"}}}", `m.json:2: field providers.x.api: unknown api "carrier-pigeon"`},
		{"no providers", "{}", "m.json:1: field providers: missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseModelsFile("m.json", []byte(tc.data))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want prefix %q", err, tc.want)
			}
		})
	}
}

// A value of the wrong type is named by its whole path (map keys and indexes included) and
// its line, at every depth of the file.
func TestModelsFileTypeErrorPaths(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"document", "[]", "m.json:1: expected an object, got JSON array"},
		{"providers", "{\"providers\": [1]}", "m.json:1: field providers: expected an object, got JSON array"},
		{"provider", "{\"providers\": {\n \"ollama\": \"http://x\"}}", "m.json:2: field providers.ollama: expected an object, got JSON string"},
		{"provider field", "{\"providers\": {\"ollama\": {\n \"baseUrl\": 5}}}", "m.json:2: field providers.ollama.baseUrl: expected a string, got JSON number"},
		{"authHeader", "{\"providers\": {\"ollama\": {\"baseUrl\": \"u\",\n \"authHeader\": \"yes\"}}}", "m.json:2: field providers.ollama.authHeader: expected true or false, got JSON string"},
		{"header value", "{\"providers\": {\"ollama\": {\"baseUrl\": \"u\", \"headers\": {\"x-a\": \"1\",\n \"x-b\": 2}}}}", "m.json:2: field providers.ollama.headers.x-b: expected a string, got JSON number"},
		{"models", "{\"providers\": {\"ollama\": {\"baseUrl\": \"u\",\n \"models\": {\"id\": \"a\"}}}}", "m.json:2: field providers.ollama.models: expected an array, got JSON object"},
		{"model", "{\"providers\": {\"ollama\": {\"baseUrl\": \"u\", \"models\": [{\"id\": \"a\"},\n \"b\"]}}}", "m.json:2: field providers.ollama.models[1]: expected an object, got JSON string"},
		{"contextWindow", "{\"providers\": {\"ollama\": {\"baseUrl\": \"u\", \"models\": [{\"id\": \"a\"}, {\"id\": \"b\",\n \"contextWindow\": \"big\"}]}}}", "m.json:2: field providers.ollama.models[1].contextWindow: expected an integer, got JSON string"},
		{"fractional maxTokens", "{\"providers\": {\"ollama\": {\"baseUrl\": \"u\", \"models\": [{\"id\": \"a\",\n \"maxTokens\": 1.5}]}}}", "m.json:2: field providers.ollama.models[0].maxTokens: expected an integer, got JSON number 1.5"},
		{"reasoning", "{\"providers\": {\"ollama\": {\"baseUrl\": \"u\", \"models\": [{\"id\": \"a\", \"reasoning\": \"yes\"}]}}}", "m.json:1: field providers.ollama.models[0].reasoning: expected true or false, got JSON string"},
		{"input element", "{\"providers\": {\"ollama\": {\"baseUrl\": \"u\", \"models\": [{\"id\": \"a\",\n \"input\": [\"text\",\n 7]}]}}}", "m.json:3: field providers.ollama.models[0].input[1]: expected a string, got JSON number"},
		{"cost field", "{\"providers\": {\"ollama\": {\"baseUrl\": \"u\", \"models\": [{\"id\": \"a\", \"cost\": {\"input\": 1,\n \"output\": \"free\"}}]}}}", "m.json:2: field providers.ollama.models[0].cost.output: expected a number, got JSON string"},
		{"thinkingLevelMap value", "{\"providers\": {\"ollama\": {\"baseUrl\": \"u\", \"models\": [{\"id\": \"a\", \"thinkingLevelMap\": {\"high\": 3}}]}}}", "m.json:1: field providers.ollama.models[0].thinkingLevelMap.high: expected a string, got JSON number"},
		{"model headers", "{\"providers\": {\"ollama\": {\"baseUrl\": \"u\", \"models\": [{\"id\": \"a\", \"headers\": [\"x\"]}]}}}", "m.json:1: field providers.ollama.models[0].headers: expected an object, got JSON array"},
		{"override", "{\"providers\": {\"openai\": {\"modelOverrides\": {\"gpt-4.1\": {\n \"contextWindow\": true}}}}}", "m.json:2: field providers.openai.modelOverrides.gpt-4.1.contextWindow: expected an integer, got JSON bool"},
		{"override cost", "{\"providers\": {\"openai\": {\"modelOverrides\": {\"gpt-4.1\": {\"cost\": {\"cacheRead\": [0]}}}}}}", "m.json:1: field providers.openai.modelOverrides.gpt-4.1.cost.cacheRead: expected a number, got JSON array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseModelsFile("m.json", []byte(tc.data))
			if err == nil || err.Error() != tc.want {
				t.Errorf("ParseModelsFile error = %v, want %q", err, tc.want)
			}
		})
	}
}

// The unknown keys are reported even when the file cannot be used: a misspelt key is often
// why a required field is missing or a type is wrong.
func TestModelsFileErrorKeepsUnknownKeys(t *testing.T) {
	tests := []struct {
		name, data string
		want       []string
	}{
		{"missing id", "{\"providers\": {\"local\": {\"baseUrl\": \"u\", \"api\": \"openai-completions\",\n \"models\": [{\"idd\": \"m1\"}]}}}",
			[]string{"m.json:2: field providers.local.models[0].id: required", "m.json:2: unknown key providers.local.models[0].idd (ignored)"}},
		{"wrong type", "{\"providers\": {\"local\": {\"baseUrl\": \"u\",\n \"apiKy\": \"k\",\n \"models\": [{\"id\": \"m1\", \"maxTokens\": \"8k\"}]}}}",
			[]string{"m.json:3: field providers.local.models[0].maxTokens: expected an integer, got JSON string", "m.json:2: unknown key providers.local.apiKy (ignored)"}},
		{"no providers", "{\"provider\": {}}",
			[]string{"m.json:1: field providers: missing (the file must be an object with a \"providers\" object)", "m.json:1: unknown key provider (ignored)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseModelsFile("m.json", []byte(tc.data))
			var mfe *ModelsFileError
			if !errors.As(err, &mfe) {
				t.Fatalf("ParseModelsFile error = %v, want a *ModelsFileError", err)
			}
			if got := strings.Split(err.Error(), "\n"); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("error:\n%s\nwant:\n%s", err, strings.Join(tc.want, "\n"))
			}
			if len(mfe.Warnings) != 1 || mfe.Warnings[0] != tc.want[1] {
				t.Errorf("Warnings = %q, want [%q]", mfe.Warnings, tc.want[1])
			}
		})
	}
}

func TestLookup(t *testing.T) {
	f, err := ParseModelsFile("models.json", []byte(goodModels))
	if err != nil {
		t.Fatal(err)
	}
	r := NewRegistryWith(nil, f)
	tests := []struct {
		id            string
		source        string
		provider      string
		contextWindow int
		reasoning     bool
		warn          bool
		err           string
	}{
		{id: "gpt-4o-mini", source: "catalogue", provider: "openai", contextWindow: 128000},
		{id: "gpt-4.1", source: "catalogue", provider: "openai", contextWindow: 500000},
		{id: "o4-mini", source: "catalogue", provider: "openai", contextWindow: 200000, reasoning: true},
		{id: "llama3.1:8b", source: "models.json", provider: "ollama", contextWindow: 128000},
		{id: "ollama/gpt-oss:20b", source: "models.json", provider: "ollama", contextWindow: 131072, reasoning: true},
		{id: "my-finetune", source: "default", provider: "openai", contextWindow: 64000, warn: true},
		{id: "claude-x", err: `uses api "anthropic-messages"`},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			res, err := r.Lookup(tc.id, 64000)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := res.Model
			if res.Source != tc.source || m.Provider != tc.provider || m.ContextWindow != tc.contextWindow || m.Reasoning != tc.reasoning || (res.Warning != "") != tc.warn {
				t.Errorf("got source %s provider %s window %d reasoning %v warning %q, want %s %s %d %v warn=%v",
					res.Source, m.Provider, m.ContextWindow, m.Reasoning, res.Warning, tc.source, tc.provider, tc.contextWindow, tc.reasoning, tc.warn)
			}
		})
	}
	res, _ := r.Lookup("llama3.1:8b", 0)
	if res.Model.BaseURL != "http://localhost:11434/v1" || res.Model.Compat["supportsDeveloperRole"] != false || res.Model.MaxTokens != DefaultMaxTokens {
		t.Errorf("ollama model = %+v, want provider baseUrl, compat and default maxTokens", res.Model)
	}
}

func TestResolveValue(t *testing.T) {
	env := map[string]string{"MY_KEY": "sk-1", "A": "x"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct{ in, want, err string }{
		{"sk-literal", "sk-literal", ""},
		{"$MY_KEY", "sk-1", ""},
		{"${A}_suffix", "x_suffix", ""},
		{"MY_KEY", "sk-1", ""},
		{"NOT_SET", "NOT_SET", ""},
		{"$$literal", "$literal", ""},
		{"$MISSING", "", "MISSING is not set"},
		{"!printf ' cmd-key\\n'", "cmd-key", ""},
	}
	for _, tc := range tests {
		got, err := ResolveValue(context.Background(), tc.in, getenv)
		if got != tc.want || (err != nil) != (tc.err != "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ResolveValue(%q) = %q, %v, want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// Keys the loader does not know are warnings naming the file, line and key, at every level;
// the known keys of a full file give none.
func TestModelsFileUnknownKeys(t *testing.T) {
	good, err := ParseModelsFile("good.json", []byte(goodModels))
	if err != nil {
		t.Fatal(err)
	}
	if len(good.Warnings) != 0 {
		t.Errorf("warnings for known keys: %q", good.Warnings)
	}
	data := `{
  "version": 2,
  "providers": {
    "local": {
      "baseUrl": "http://localhost:8080/v1",
      "api": "openai-completions",
      "apikey": "CASE_DOES_NOT_MATTER_TO_THE_LOADER",
      "timeout": 30,
      "compat": {"anythingGoes": true},
      "models": [
        {"id": "a", "contextWindw": 1000, "cost": {"input": 1, "outptu": 2}},
        {"id": "b"}
      ]
    },
    "openai": {
      "modelOverrides": {"gpt-4.1": {"maxTokens": 100, "speed": "fast"}}
    }
  }
}`
	f, err := ParseModelsFile("m.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"m.json:11: unknown key providers.local.models[0].contextWindw (ignored)",
		"m.json:11: unknown key providers.local.models[0].cost.outptu (ignored)",
		"m.json:8: unknown key providers.local.timeout (ignored)",
		"m.json:16: unknown key providers.openai.modelOverrides.gpt-4.1.speed (ignored)",
		"m.json:2: unknown key version (ignored)",
	}
	if strings.Join(f.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(f.Warnings, "\n"), strings.Join(want, "\n"))
	}
}

// TestLookupWithAnthropic checks a registry that also has a built-in Anthropic catalogue, as
// the binary builds it: anthropic-messages models (built in, from a models.json provider in
// pi's format, and from an "anthropic" entry that patches the built-ins) are selectable, and
// a chosen provider keeps the other built-in provider's models out of the way.
func TestLookupWithAnthropic(t *testing.T) {
	const anthropicModels = `{
  "providers": {
    "anthropic-proxy": {
      "baseUrl": "https://proxy.example",
      "api": "anthropic-messages",
      "apiKey": "$PROXY_KEY",
      "models": [{"id": "claude-x", "reasoning": true, "contextWindow": 100000}]
    },
    "anthropic": {
      "baseUrl": "https://gateway.example",
      "modelOverrides": {"claude-a": {"maxTokens": 1000}},
      "models": [{"id": "claude-custom"}]
    }
  }
}`
	f, err := ParseModelsFile("models.json", []byte(anthropicModels))
	if err != nil {
		t.Fatal(err)
	}
	claude := core.Model{ID: "claude-a", API: "anthropic-messages", Provider: "anthropic", Input: []string{"text"}, ContextWindow: 200000, MaxTokens: 64000}
	r := NewRegistryWith([]Builtin{{Provider: "anthropic", API: "anthropic-messages", Models: []core.Model{claude}}}, f)
	tests := []struct {
		id, provider                      string
		source, api, gotProvider, baseURL string
		maxTokens                         int
	}{
		{id: "claude-a", source: "catalogue", api: "anthropic-messages", gotProvider: "anthropic", baseURL: "https://gateway.example", maxTokens: 1000},
		{id: "anthropic/claude-a", source: "catalogue", api: "anthropic-messages", gotProvider: "anthropic", baseURL: "https://gateway.example", maxTokens: 1000},
		{id: "claude-custom", source: "models.json", api: "anthropic-messages", gotProvider: "anthropic", baseURL: "https://gateway.example", maxTokens: DefaultMaxTokens},
		{id: "claude-x", source: "models.json", api: "anthropic-messages", gotProvider: "anthropic-proxy", baseURL: "https://proxy.example", maxTokens: DefaultMaxTokens},
		{id: "gpt-4.1", source: "catalogue", api: API, gotProvider: "openai", maxTokens: 32768},
		// --provider openai: the Anthropic catalogue is not a candidate, so a proxy's
		// "claude-a" goes to the OpenAI endpoint with default metadata, as before.
		{id: "claude-a", provider: "openai", source: "default", api: API, gotProvider: "openai", maxTokens: DefaultMaxTokens},
		// models.json providers stay candidates whatever the built-in provider.
		{id: "claude-x", provider: "openai", source: "models.json", api: "anthropic-messages", gotProvider: "anthropic-proxy", baseURL: "https://proxy.example", maxTokens: DefaultMaxTokens},
		{id: "claude-next", provider: "anthropic", source: "default", api: "anthropic-messages", gotProvider: "anthropic", maxTokens: DefaultMaxTokens},
		{id: "anthropic/claude-next", provider: "anthropic", source: "default", api: "anthropic-messages", gotProvider: "anthropic", maxTokens: DefaultMaxTokens},
		{id: "gpt-4.1", provider: "anthropic", source: "default", api: "anthropic-messages", gotProvider: "anthropic", maxTokens: DefaultMaxTokens},
	}
	for _, tc := range tests {
		t.Run(tc.provider+":"+tc.id, func(t *testing.T) {
			res, err := r.LookupFor(tc.id, 0, tc.provider)
			if err != nil {
				t.Fatal(err)
			}
			m := res.Model
			if res.Source != tc.source || m.API != tc.api || m.Provider != tc.gotProvider || res.ProviderName != tc.gotProvider || m.BaseURL != tc.baseURL || m.MaxTokens != tc.maxTokens {
				t.Errorf("got source %s api %s provider %s/%s baseURL %q maxTokens %d, want %s %s %s %q %d",
					res.Source, m.API, m.Provider, res.ProviderName, m.BaseURL, m.MaxTokens, tc.source, tc.api, tc.gotProvider, tc.baseURL, tc.maxTokens)
			}
			if strings.Contains(tc.id, "claude-next") && m.ID != "claude-next" {
				t.Errorf("default model id = %q, want claude-next", m.ID)
			}
		})
	}
	// A built-in provider's models.json entry needs neither baseUrl nor api.
	g, err := ParseModelsFile("m.json", []byte(`{"providers": {"anthropic": {"models": [{"id": "claude-b"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := NewRegistryWith([]Builtin{{Provider: "anthropic", API: "anthropic-messages"}}, g).Lookup("claude-b", 0); err != nil || res.Model.API != "anthropic-messages" || res.Model.BaseURL != "" {
		t.Errorf("claude-b = %+v, %v", res.Model, err)
	}
	// Without the Anthropic built-in (NewRegistry), anthropic-messages is refused.
	if _, err := NewRegistryWith(nil, f).Lookup("claude-x", 0); err == nil || !strings.Contains(err.Error(), "supports only openai-completions, openai-responses and azure-openai-responses") {
		t.Errorf("err = %v", err)
	}
}

// "provider/id" of a models.json provider that does not list id is an error naming the
// provider, its file and its models, not an unknown model sent with default metadata.
func TestLookupModelNotInProvider(t *testing.T) {
	one, err := ParseModelsFile("/a/models.json", []byte(`{"providers": {"local": {"baseUrl": "http://l/v1", "api": "openai-completions", "models": [{"id": "m1"}]}, "empty": {"baseUrl": "http://e/v1", "api": "openai-completions"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	two, err := ParseModelsFile("/b/models.json", []byte(`{"providers": {"local": {"baseUrl": "http://l/v1", "api": "openai-completions", "models": [{"id": "m3"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		files []*ModelsFile
		id    string
		want  string
	}{
		{"one file", []*ModelsFile{one}, "local/m2", `provider "local" (/a/models.json) has no model "m2"; its models: m1`},
		{"two files", []*ModelsFile{one, two}, "local/m2", `provider "local" (/a/models.json and /b/models.json) has no model "m2"; its models: m1, m3`},
		{"no models", []*ModelsFile{one}, "empty/m", `provider "empty" (/a/models.json) has no model "m": it lists no models`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewRegistryWith(nil, tc.files...).LookupFor(tc.id, 0, "")
			var ume *UnknownModelError
			if !errors.As(err, &ume) || err.Error() != tc.want {
				t.Errorf("LookupFor(%q) error = %v, want %q", tc.id, err, tc.want)
			}
		})
	}
	// Ids of a built-in provider, or with a prefix that is no provider, keep the default
	// metadata: the catalogues are not every model a server has.
	r := NewRegistryWith(nil, one)
	for _, id := range []string{"openai/gpt-5-next", "meta-llama/llama-4", "local/m1"} {
		if _, err := r.LookupFor(id, 0, ""); err != nil {
			t.Errorf("LookupFor(%q) error = %v, want none", id, err)
		}
	}
}
