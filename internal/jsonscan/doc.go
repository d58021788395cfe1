// Package jsonscan holds the byte-level pieces of JSON's grammar that pi-rpc's hand-written
// one-pass parsers share: the OpenAI chunk decoder (llm/openai) and the session file's line
// validator (session). Each is a pure function over (b, i) that returns where the token ends,
// and whether it is one, exactly as encoding/json's scanner sees it; the parsers keep their
// own structure (what to do with a key, a depth limit, a fallback) and read tokens here, so
// that the grammar is written, and fuzzed against encoding/json, once.
//
// Why hand-written scanning at all: decoding chunks and validating session lines were most
// of the provider's and of a session open's CPU (docs/benchmarks.md).
package jsonscan
