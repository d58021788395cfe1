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
	// claude is a current model: every one reasons and takes images.
	claude := func(id, name string, window, out int, cost core.ModelCost) core.Model {
		return core.Model{ID: id, Name: name, API: API, Provider: ProviderName, Reasoning: true,
			Input: []string{"text", "image"}, ContextWindow: window, MaxTokens: out, Cost: cost}
	}
	// xhigh is m taking the xhigh thinking level, sent as effort.
	xhigh := func(m core.Model, effort string) core.Model {
		m.ThinkingLevelMap = map[core.ThinkingLevel]*string{core.ThinkingXHigh: &effort}
		return m
	}
	// The list prices of Opus from 4.5 on and of every Sonnet.
	opus := core.ModelCost{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}
	sonnet := core.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	return []core.Model{
		xhigh(claude("claude-opus-4-7", "Claude Opus 4.7", 1000000, 128000, opus), "xhigh"),
		xhigh(claude("claude-opus-4-6", "Claude Opus 4.6", 1000000, 128000, opus), "max"),
		claude("claude-sonnet-4-6", "Claude Sonnet 4.6", 1000000, 64000, sonnet),
		claude("claude-opus-4-5", "Claude Opus 4.5", 200000, 64000, opus),
		claude("claude-sonnet-4-5", "Claude Sonnet 4.5", 200000, 64000, sonnet),
		claude("claude-haiku-4-5", "Claude Haiku 4.5", 200000, 64000, core.ModelCost{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25}),
		claude("claude-opus-4-1", "Claude Opus 4.1", 200000, 32000, core.ModelCost{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75}),
		claude("claude-sonnet-4-0", "Claude Sonnet 4", 200000, 64000, sonnet),
	}
}
