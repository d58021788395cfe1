package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func writeModels(t *testing.T, path, provider, model string) {
	t.Helper()
	data := `{"providers":{"` + provider + `":{"baseUrl":"http://127.0.0.1:1/v1","api":"openai-completions","apiKey":"k","models":[{"id":"` + model + `"}]}}}`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
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
