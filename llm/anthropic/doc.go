// Package anthropic streams model responses from Anthropic's Messages API (Claude) through
// the official SDK, github.com/anthropics/anthropic-sdk-go/v2, and implements
// [core.Provider].
//
// The package never reads ANTHROPIC_* environment variables (the SDK's environment defaults
// are switched off): the base URL, the API key and where the key came from are passed in
// [Config] by the binary. The SDK's own retries are off; the session layer owns retrying,
// using the [core.ProviderError] classification that every failed stream carries (429 and
// 529 overloaded are retryable with the server's retry-after, "prompt is too long" is a
// context overflow, 401/403 name the key's source).
//
// A response is mapped event by event onto core's [core.MessageBuilder] as pi maps it: text
// blocks, thinking blocks carrying their signature (sent back unchanged on the next request),
// redacted thinking as a redacted thinking block whose signature is the opaque data, tool_use
// blocks whose input_json_delta fragments go through the partial-JSON parser, usage with
// cache reads and writes priced by the model, and stop_reason. Blocks end as Anthropic ends
// them, one by one. Failures of every kind (HTTP errors, error events mid-stream, bodies that
// are not event streams, malformed events, dropped connections, silence longer than the idle
// timeout, cancellation) end the stream with an error event; nothing panics or hangs.
//
// Requests carry the system prompt as a system block, the tools, images, thinking (adaptive
// with an effort on Opus 4.6+ and Sonnet 4.6, a token budget by thinking level on older
// models, disabled at level off), max_tokens from the model, and cache_control on the system
// prompt, the last tool and the last user turn. Messages written by other providers are
// converted first: their thinking becomes text and their tool-call ids are normalised to
// Anthropic's pattern.
//
// The built-in models are in [Catalogue]; docs/configuration.md describes the configuration.
package anthropic
