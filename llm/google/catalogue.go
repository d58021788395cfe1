package google

import "github.com/pi-rpc/pi-rpc/core"

// API is the api value of models this package serves (pi's name for the Gemini API).
const API = "google-generative-ai"

// ProviderName is the provider of the built-in models.
const ProviderName = "google"

// DefaultBaseURL is the Gemini API root with its version, as pi's catalogue gives it;
// requests go to BaseURL + "/models/{model}:streamGenerateContent?alt=sse".
const DefaultBaseURL = "https://generativelanguage.googleapis.com/v1beta"

// CatalogueSource says where the catalogue's figures come from: pi-ai's generated model list
// (the "google" provider), which copies Google's published context windows, output limits and
// list prices (dollars per million tokens; cached input at the cache-read rate, which Google
// bills; no cache-write price). models.json can override any model's figures.
const CatalogueSource = "@mariozechner/pi-ai models.generated.ts, provider google"

// Catalogue returns the built-in Gemini models, in a fresh slice the caller may modify. Every
// Gemini 2.5 and 3 model reasons; how a thinking level is sent depends on the model
// (thinkingLevel for Gemini 3, a token budget for 2.5; see docs/configuration.md).
func Catalogue() []core.Model {
	vision := func() []string { return []string{"text", "image"} }
	m := func(id, name string, reasoning bool, window, out int, in, outPrice, cacheRead float64) core.Model {
		return core.Model{ID: id, Name: name, API: API, Provider: ProviderName, Reasoning: reasoning,
			Input: vision(), ContextWindow: window, MaxTokens: out,
			Cost: core.ModelCost{Input: in, Output: outPrice, CacheRead: cacheRead}}
	}
	return []core.Model{
		m("gemini-3-pro-preview", "Gemini 3 Pro Preview", true, 1000000, 64000, 2, 12, 0.2),
		m("gemini-3-flash-preview", "Gemini 3 Flash Preview", true, 1048576, 65536, 0.5, 3, 0.05),
		m("gemini-2.5-pro", "Gemini 2.5 Pro", true, 1048576, 65536, 1.25, 10, 0.31),
		m("gemini-2.5-flash", "Gemini 2.5 Flash", true, 1048576, 65536, 0.3, 2.5, 0.075),
		m("gemini-2.5-flash-lite", "Gemini 2.5 Flash Lite", true, 1048576, 65536, 0.1, 0.4, 0.025),
		m("gemini-flash-latest", "Gemini Flash Latest", true, 1048576, 65536, 0.3, 2.5, 0.075),
		m("gemini-flash-lite-latest", "Gemini Flash-Lite Latest", true, 1048576, 65536, 0.1, 0.4, 0.025),
		m("gemini-2.0-flash", "Gemini 2.0 Flash", false, 1048576, 8192, 0.1, 0.4, 0.025),
		m("gemini-2.0-flash-lite", "Gemini 2.0 Flash Lite", false, 1048576, 8192, 0.075, 0.3, 0),
	}
}
