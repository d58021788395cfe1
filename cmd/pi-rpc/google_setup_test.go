package main

import (
	"context"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
	"github.com/pi-rpc/pi-rpc/llm/google"
)

// TestGoogleSetup checks how the Gemini provider is chosen and configured: by --provider
// google, by GEMINI_API_KEY or GOOGLE_API_KEY alone, by a Gemini model id, and by a
// models.json provider with api google-generative-ai; and that a missing key is a problem
// naming both variables.
func TestGoogleSetup(t *testing.T) {
	models := modelsFile(t, `{"providers": {
	  "gem": {"baseUrl": "http://127.0.0.1:1/v1beta", "api": "google-generative-ai", "apiKey": "k", "models": [{"id": "gemini-proxied", "reasoning": true}]},
	  "google": {"modelOverrides": {"gemini-2.5-flash": {"maxTokens": 1000}}}
	}}`)
	tests := []struct {
		name    string
		c       config
		env     map[string]string
		model   string
		google  bool
		problem string
	}{
		{name: "--provider google", c: config{provider: "google"}, env: map[string]string{"GEMINI_API_KEY": "g"}, model: defaultGoogleModel, google: true},
		{name: "only GEMINI_API_KEY", env: map[string]string{"GEMINI_API_KEY": "g"}, model: defaultGoogleModel, google: true},
		{name: "only GOOGLE_API_KEY", env: map[string]string{"GOOGLE_API_KEY": "g"}, model: defaultGoogleModel, google: true},
		{name: "OpenAI's key first", env: map[string]string{"GEMINI_API_KEY": "g", "OPENAI_API_KEY": "o"}, model: defaultOpenAIModel},
		{name: "Anthropic's key before Google's", env: map[string]string{"GEMINI_API_KEY": "g", "ANTHROPIC_API_KEY": "a"}, model: defaultAnthropicModel},
		{name: "a Gemini id", c: config{model: "gemini-3-pro-preview"}, env: map[string]string{"GEMINI_API_KEY": "g", "OPENAI_API_KEY": "o"}, model: "gemini-3-pro-preview", google: true},
		{name: "models.json google-generative-ai provider", c: config{model: "gem/gemini-proxied"}, model: "gemini-proxied", google: true},
		{name: "models.json override of a built-in Gemini model", c: config{model: "gemini-2.5-flash"}, env: map[string]string{"GOOGLE_API_KEY": "g"}, model: "gemini-2.5-flash", google: true},
		{name: "--base-url needs no key", c: config{provider: "google", baseURL: "http://127.0.0.1:2"}, model: defaultGoogleModel, google: true},
		{name: "no key", c: config{provider: "google"}, model: defaultGoogleModel, google: true,
			problem: "noApiKey: No API key for Google: set GEMINI_API_KEY or GOOGLE_API_KEY (or pass --base-url for a server that needs none)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := checkChoice(t, tc.c, models, tc.env, tc.model, tc.problem)
			if !ok {
				return
			}
			servedBy[*google.Provider](t, s, google.API, tc.google)
			if tc.name == "models.json override of a built-in Gemini model" && s.model.MaxTokens != 1000 {
				t.Errorf("maxTokens = %d, want the override's 1000", s.model.MaxTokens)
			}
		})
	}
}

// TestGoogleKeyPrecedence sends a request through the configured provider: GEMINI_API_KEY
// wins over GOOGLE_API_KEY, which is used alone; the Gemini models resolve (and so are
// available) only when one of them is set.
func TestGoogleKeyPrecedence(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"GEMINI_API_KEY": "gemini", "GOOGLE_API_KEY": "google"}, "gemini"},
		{map[string]string{"GOOGLE_API_KEY": "google"}, "google"},
	} {
		mock := mockgoogle.New(&mockgoogle.Script{Responses: []mockgoogle.Response{{Text: "ok"}}})
		s, err := setupIn(t, config{provider: "google", baseURL: mock.URL()}, "", tc.env)
		if err != nil {
			t.Fatal(err)
		}
		for ev := range s.provider.Stream(context.Background(), &core.Request{Model: s.model, Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}}) {
			if ev.Type == core.EventError {
				t.Fatalf("stream failed: %s", ev.Partial.ErrorMessage)
			}
		}
		if got := mock.Requests()[0].Header.Get("X-Goog-Api-Key"); got != tc.want {
			t.Errorf("%v: key sent = %q, want %q", tc.env, got, tc.want)
		}
		mock.Close()
	}

	for _, tc := range []struct {
		env       map[string]string
		available bool
	}{
		{map[string]string{"OPENAI_API_KEY": "o"}, false},
		{map[string]string{"OPENAI_API_KEY": "o", "GOOGLE_API_KEY": "g"}, true},
	} {
		s, err := setupIn(t, config{}, "", tc.env)
		if err != nil {
			t.Fatal(err)
		}
		_, p, err := s.models.Resolve("google", "gemini-2.5-flash")
		if _, ok := p.(*google.Provider); ok != tc.available || (err == nil) != tc.available {
			t.Errorf("%v: Resolve(google, gemini-2.5-flash) = %T, %v; want available=%v", tc.env, p, err, tc.available)
		}
	}
}
