package anthropic

import "github.com/pi-rpc/pi-rpc/core"

// API is the api value of models this package serves (pi's name for the Messages API).
const API = "anthropic-messages"

// ProviderName is the provider of the built-in models.
const ProviderName = "anthropic"

// DefaultBaseURL is Anthropic's API root; requests go to BaseURL + "/v1/messages".
const DefaultBaseURL = "https://api.anthropic.com"

// CatalogueSource says where the catalogue's figures come from: pi-ai 0.73.1's generated
// model list, which copies Anthropic's published context windows, output limits and list
// prices (dollars per million tokens; cache writes at the 5-minute rate). models.json can
// override any model's figures.
const CatalogueSource = "@mariozechner/pi-ai 0.73.1 models.generated.js"

// Catalogue returns the built-in Claude models, in a fresh slice the caller may modify.
// Every current model reasons; Opus 4.6 and 4.7 also take xhigh, sent as the effort their
// API names it ("max" and "xhigh").
func Catalogue() []core.Model {
	maxEffort, xhigh := "max", "xhigh"
	vision := func() []string { return []string{"text", "image"} }
	return []core.Model{
		{
			ID: "claude-opus-4-7", Name: "Claude Opus 4.7", API: API, Provider: ProviderName, Reasoning: true,
			ThinkingLevelMap: map[core.ThinkingLevel]*string{core.ThinkingXHigh: &xhigh},
			Input:            vision(), ContextWindow: 1000000, MaxTokens: 128000,
			Cost: core.ModelCost{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25},
		},
		{
			ID: "claude-opus-4-6", Name: "Claude Opus 4.6", API: API, Provider: ProviderName, Reasoning: true,
			ThinkingLevelMap: map[core.ThinkingLevel]*string{core.ThinkingXHigh: &maxEffort},
			Input:            vision(), ContextWindow: 1000000, MaxTokens: 128000,
			Cost: core.ModelCost{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25},
		},
		{
			ID: "claude-sonnet-4-6", Name: "Claude Sonnet 4.6", API: API, Provider: ProviderName, Reasoning: true,
			Input: vision(), ContextWindow: 1000000, MaxTokens: 64000,
			Cost: core.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
		},
		{
			ID: "claude-opus-4-5", Name: "Claude Opus 4.5", API: API, Provider: ProviderName, Reasoning: true,
			Input: vision(), ContextWindow: 200000, MaxTokens: 64000,
			Cost: core.ModelCost{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25},
		},
		{
			ID: "claude-sonnet-4-5", Name: "Claude Sonnet 4.5", API: API, Provider: ProviderName, Reasoning: true,
			Input: vision(), ContextWindow: 200000, MaxTokens: 64000,
			Cost: core.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
		},
		{
			ID: "claude-haiku-4-5", Name: "Claude Haiku 4.5", API: API, Provider: ProviderName, Reasoning: true,
			Input: vision(), ContextWindow: 200000, MaxTokens: 64000,
			Cost: core.ModelCost{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25},
		},
		{
			ID: "claude-opus-4-1", Name: "Claude Opus 4.1", API: API, Provider: ProviderName, Reasoning: true,
			Input: vision(), ContextWindow: 200000, MaxTokens: 32000,
			Cost: core.ModelCost{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75},
		},
		{
			ID: "claude-sonnet-4-0", Name: "Claude Sonnet 4", API: API, Provider: ProviderName, Reasoning: true,
			Input: vision(), ContextWindow: 200000, MaxTokens: 64000,
			Cost: core.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
		},
	}
}
