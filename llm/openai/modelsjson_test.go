package openai

import (
	"context"
	"strings"
	"testing"
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
		{"type", "{\n  \"providers\": {\n    \"x\": {\n      \"baseUrl\": \"u\", \"api\": \"openai-completions\",\n      \"models\": [{\"id\": \"a\", \"contextWindow\": \"big\"}]\n    }\n  }\n}", "m.json:5: field providers.models.contextWindow: expected int"},
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

func TestLookup(t *testing.T) {
	f, err := ParseModelsFile("models.json", []byte(goodModels))
	if err != nil {
		t.Fatal(err)
	}
	r := NewRegistry(f)
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
