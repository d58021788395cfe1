package main

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/llm/openai"
)

// TestResponsesSetup checks how the Responses APIs are chosen: --api responses for OpenAI's
// models and unknown ids, a models.json provider with api openai-responses or
// azure-openai-responses, and --provider azure-openai-responses from the environment alone;
// a missing Azure key or endpoint is a problem naming the variables to set.
func TestResponsesSetup(t *testing.T) {
	models := modelsFile(t, `{"providers": {
	  "resp": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-responses", "apiKey": "k", "models": [{"id": "gpt-5", "reasoning": true}]},
	  "az": {"baseUrl": "https://r.openai.azure.com/openai/v1", "api": "azure-openai-responses", "apiKey": "k", "models": [{"id": "gpt-5-mini"}]}
	}}`)
	azure := map[string]string{"AZURE_OPENAI_API_KEY": "az", "AZURE_OPENAI_RESOURCE_NAME": "res"}
	tests := []struct {
		name     string
		c        config
		env      map[string]string
		model    string
		api      string
		provider string
		problem  string
	}{
		{name: "default: Chat Completions", env: map[string]string{"OPENAI_API_KEY": "o"}, model: defaultOpenAIModel, api: openai.API, provider: "openai"},
		{name: "--api responses", c: config{api: "responses", model: "o4-mini"}, env: map[string]string{"OPENAI_API_KEY": "o"}, model: "o4-mini", api: openai.ResponsesAPI, provider: "openai"},
		{name: "--api responses, an unknown id", c: config{api: "openai-responses", model: "gpt-5.9"}, env: map[string]string{"OPENAI_API_KEY": "o"}, model: "gpt-5.9", api: openai.ResponsesAPI, provider: "openai"},
		{name: "models.json openai-responses provider", c: config{model: "resp/gpt-5"}, model: "gpt-5", api: openai.ResponsesAPI, provider: "resp"},
		{name: "models.json azure-openai-responses provider", c: config{model: "az/gpt-5-mini"}, model: "gpt-5-mini", api: openai.AzureAPI, provider: "az"},
		{name: "--provider azure-openai-responses", c: config{provider: openai.AzureProviderName}, env: azure, model: defaultOpenAIModel, api: openai.AzureAPI, provider: openai.AzureProviderName},
		{name: "azure without a key", c: config{provider: openai.AzureProviderName, model: "o4-mini"}, env: map[string]string{"AZURE_OPENAI_BASE_URL": "https://r.openai.azure.com/openai/v1"},
			model: "o4-mini", problem: "noApiKey: No API key for Azure OpenAI: set AZURE_OPENAI_API_KEY"},
		{name: "azure without an endpoint", c: config{provider: openai.AzureProviderName}, env: map[string]string{"AZURE_OPENAI_API_KEY": "az"},
			model: defaultOpenAIModel, problem: "noApiKey: " + noAzureURL},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := checkChoice(t, tc.c, models, tc.env, tc.model, tc.problem)
			if !ok {
				return
			}
			if _, isOpenAI := s.provider.(*openai.Provider); !isOpenAI || s.model.API != tc.api || s.model.Provider != tc.provider {
				t.Errorf("provider %T, model api %s of %s; want api %s of %s", s.provider, s.model.API, s.model.Provider, tc.api, tc.provider)
			}
		})
	}
	if _, err := parseFlags([]string{"--provider", "anthropic", "--api", "responses"}, nil); err == nil || !strings.Contains(err.Error(), "--api applies to --provider openai") {
		t.Errorf("--api with anthropic: %v", err)
	}
	if _, err := parseFlags([]string{"--api", "assistants"}, nil); err == nil || !strings.Contains(err.Error(), "--api: expected completions or responses") {
		t.Errorf("--api assistants: %v", err)
	}
}

// TestAzureSetupStreams: --provider azure-openai-responses configured by the environment alone
// (AZURE_OPENAI_BASE_URL, the key, an api-version and a deployment map) sends the request to
// the Azure route with the api-key header, the deployment as the model, and the api-version.
func TestAzureSetupStreams(t *testing.T) {
	srv := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{{Text: "hi"}}})
	t.Cleanup(srv.Close)
	s, err := setupIn(t, config{provider: openai.AzureProviderName, model: "gpt-4.1-mini"}, "", map[string]string{
		"AZURE_OPENAI_API_KEY": "az-secret", "AZURE_OPENAI_BASE_URL": srv.Root() + "/openai/v1/",
		"AZURE_OPENAI_API_VERSION": "preview", "AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "gpt-4.1-mini=mini-prod",
	})
	if err != nil || len(s.problems) > 0 {
		t.Fatalf("setup: %v %v", err, s.problems)
	}
	var last core.AssistantEvent
	for ev := range s.provider.Stream(context.Background(), &core.Request{Model: s.model, Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}}) {
		last = ev
	}
	if last.Type != core.EventDone {
		t.Fatalf("stream ended %s: %s", last.Type, last.Partial.ErrorMessage)
	}
	r := srv.Requests()[0]
	if r.Path != "/openai/v1/responses" || r.Query != "api-version=preview" || r.Header.Get("Api-Key") != "az-secret" || r.Decoded["model"] != "mini-prod" {
		t.Errorf("request %s?%s api-key %q model %v", r.Path, r.Query, r.Header.Get("Api-Key"), r.Decoded["model"])
	}
}
