// Package openai streams model responses from any OpenAI-compatible Chat Completions endpoint
// (OpenAI, OpenRouter, vLLM, llama.cpp, Ollama), from OpenAI's Responses API and from Azure
// OpenAI's, and implements [core.Provider].
//
// It speaks the API through openai-go (github.com/openai/openai-go/v3): requests are built
// with the SDK's params types and sent by its client, the event stream is read by its
// ssestream decoder and each chunk is decoded into its ChatCompletionChunk; the fields other
// servers add (reasoning deltas, DeepSeek's cache hits, vLLM's per-choice usage, OpenRouter's
// in-stream errors) are read from the SDK's extra fields. The SDK's own retries are off, and
// a request middleware puts the idle timer on the response body and reads error bodies for
// llm/internal/failure's classification.
//
// The package never reads OPENAI_* environment variables: the base URL, the API key and where
// the key came from are passed in [Config] by the binary, so tests and embedders get exactly
// what they configure. It never retries: the session layer owns retrying, using the
// [core.ProviderError] classification that every failed stream carries.
//
// A response is mapped chunk by chunk onto core's [core.MessageBuilder] (as pi-ai does):
// content deltas become text blocks, reasoning deltas (reasoning_content, reasoning,
// reasoning_text) thinking blocks signed with their field name, tool-call deltas tool-call
// blocks keyed by their stream index. Failures of every kind — HTTP errors, bodies that are not
// an event stream, malformed lines, dropped connections, silence longer than the idle timeout
// and cancellation — end the stream with an error event; nothing panics or hangs.
//
// The idle timer counts only time spent waiting for the server (headers and body bytes). It is
// paused while the consumer handles an event, so a consumer that is slow because its own
// client stopped reading never makes the provider give up.
//
// The Responses API ([Config.API] [ResponsesAPI] or [AzureAPI]) lives in responses.go (the
// request: the transcript as input items, each of the model's reasoning items sent back as it
// returned it, from the thinking block it signs) and responses_stream.go (its events mapped
// onto the builder, one output item after another), Azure's routing and api-key in azure.go,
// through openai-go's azure package. The request is the SDK's ResponseNewParams, sent by its
// client (retries off, the same middleware) and read by its ssestream decoder into its
// ResponseStreamEventUnion.
//
// Models come from the built-in catalogue ([Catalogue]), from pi-format models.json files
// ([LoadModelsFile]) and, for unknown ids, from default metadata ([Lookup]).
package openai
