package openai

import "github.com/pi-rpc/pi-rpc/core"

// API is the api value of models this package serves (pi's name for Chat Completions).
const API = "openai-completions"

// ProviderName is the provider of the built-in models.
const ProviderName = "openai"

// PricesDate is the date of OpenAI's published list prices (platform.openai.com/docs/pricing)
// that the catalogue carries: the o4-mini and GPT-4.1 launch price list of 2025-04-16, which
// also lists gpt-4o-mini. They were not re-checked against a live price list when written
// down here; models.json can override any model's cost.
const PricesDate = "2025-04-16"

// Catalogue returns the built-in models, in a fresh slice the caller may modify. Prices are
// dollars per million tokens (input, output, cached input), as of [PricesDate].
func Catalogue() []core.Model {
	low := "low"
	return []core.Model{
		{
			ID: "gpt-4.1", Name: "GPT-4.1", API: API, Provider: ProviderName,
			Input: []string{"text", "image"}, ContextWindow: 1047576, MaxTokens: 32768,
			Cost: core.ModelCost{Input: 2, Output: 8, CacheRead: 0.5},
		},
		{
			ID: "gpt-4.1-mini", Name: "GPT-4.1 mini", API: API, Provider: ProviderName,
			Input: []string{"text", "image"}, ContextWindow: 1047576, MaxTokens: 32768,
			Cost: core.ModelCost{Input: 0.4, Output: 1.6, CacheRead: 0.1},
		},
		{
			ID: "gpt-4o-mini", Name: "GPT-4o mini", API: API, Provider: ProviderName,
			Input: []string{"text", "image"}, ContextWindow: 128000, MaxTokens: 16384,
			Cost: core.ModelCost{Input: 0.15, Output: 0.6, CacheRead: 0.075},
		},
		{
			// o4-mini accepts reasoning_effort low, medium and high; minimal is sent as low.
			ID: "o4-mini", Name: "o4-mini", API: API, Provider: ProviderName, Reasoning: true,
			ThinkingLevelMap: map[core.ThinkingLevel]*string{core.ThinkingMinimal: &low},
			Input:            []string{"text", "image"}, ContextWindow: 200000, MaxTokens: 100000,
			Cost: core.ModelCost{Input: 1.1, Output: 4.4, CacheRead: 0.275},
		},
	}
}

// AzureCatalogue is the built-in models as the azure-openai-responses provider serves them
// (pi's provider of that name): OpenAI's catalogue on the Responses API of Azure OpenAI,
// named "... (Azure)" so that model pickers tell them apart, each sent under its model id
// unless AZURE_OPENAI_DEPLOYMENT_NAME_MAP names its deployment.
func AzureCatalogue() []core.Model {
	models := Catalogue()
	for i := range models {
		models[i].API, models[i].Provider = AzureAPI, AzureProviderName
		models[i].Name += " (Azure)"
	}
	return models
}
