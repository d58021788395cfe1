// Package google streams model responses from Google's Gemini API (api
// "google-generative-ai") through Google's Go SDK, google.golang.org/genai, and implements
// [core.Provider].
//
// The SDK is given everything explicitly (Backend BackendGeminiAPI, the API key, the base URL
// and its version), so it reads none of GEMINI_API_KEY, GOOGLE_API_KEY or
// GOOGLE_GEMINI_BASE_URL itself: the binary resolves the key (GEMINI_API_KEY, else
// GOOGLE_API_KEY, as pi reads them) and passes it in [Config]. The SDK's own retries and its
// automatic stream continuation are off; the session layer owns retrying, using the
// [core.ProviderError] classification every failed stream carries: 429 RESOURCE_EXHAUSTED and
// 5xx are retryable with the delay the server gives (its RetryInfo detail, else Retry-After),
// an input over the window ("The input token count ... exceeds the maximum") is a context
// overflow, and 401/403 or an invalid key name the key's source. A transport under the SDK's
// HTTP client sets the key header, records error responses for that classification, feeds
// the idle timer and drops the SSE comments and fields the SDK's reader cannot take.
//
// A response (GenerateContentStream, streamGenerateContent?alt=sse) is mapped chunk by chunk
// onto core's [core.MessageBuilder] as pi maps it: text parts as text, parts with thought:
// true as thinking, each part's thoughtSignature kept on the block it came with (text:
// TextSignature, thinking: ThinkingSignature, function call: ThoughtSignature) and sent back
// unchanged on the same part in later requests; functionCall parts as tool calls, each whole
// and ended at once, with the API's id or one made from the name, the time and a counter;
// usageMetadata (prompt less cached as input, cached as cache reads, candidates plus thoughts
// as output) priced by the model; finishReason STOP as stop, MAX_TOKENS as length (toolUse
// when the message has calls), any other reason (SAFETY, RECITATION, PROHIBITED_CONTENT, ...)
// as an error naming it. Failures of every kind end the stream with an error event, including
// the SDK's own panic on a chunk of an unexpected shape, which is recovered.
//
// Requests carry the system prompt as systemInstruction; tools as function declarations whose
// JSON Schema is reduced to the subset Gemini accepts (convertSchema lists what is kept and
// what is dropped: $schema, $ref to anything but a local definition, $defs, definitions,
// additionalProperties, patternProperties, not, if/then/else, exclusiveMinimum,
// exclusiveMaximum, multipleOf, uniqueItems, examples, readOnly, writeOnly, deprecated and any
// other keyword; oneOf becomes anyOf, const a one-value enum, allOf is merged, local $refs are inlined);
// images as inline data, in user turns and tool results; tool results as functionResponse
// parts in a user turn; thinkingConfig by level as pi maps it (thinkingLevel on Gemini 3,
// thinkingBudget on 2.5, includeThoughts: true); maxOutputTokens; temperature; the model's
// headers. Messages written by other models are converted first: their thinking becomes text,
// their signatures are dropped, and on Gemini 3 their function calls become a text note (the
// API rejects an unsigned call).
//
// Vertex AI (api "google-vertex") is not served. The built-in models are in [Catalogue];
// docs/configuration.md describes the configuration.
package google
