package google

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// benchChunks matches llm/openai's and llm/anthropic's benchmarks, so the per-chunk figures
// compare.
const benchChunks = 2000

// benchBody is a text answer in Gemini's chunks, each with its usageMetadata as Gemini sends
// it, the last with the finishReason.
func benchBody() []byte {
	var b bytes.Buffer
	chunk := func(finish string) {
		b.WriteString(`data: {"candidates": [{"content": {"parts": [{"text": " token"}],"role": "model"}` + finish + `,"index": 0}],"usageMetadata": {"promptTokenCount": 100,"totalTokenCount": 100},"modelVersion": "gemini-2.5-flash","responseId": "kRnBaNjPLIqz7M8P2NnHqAc"}` + "\r\n\r\n")
	}
	for range benchChunks - 1 {
		chunk("")
	}
	chunk(`,"finishReason": "STOP"`)
	return b.Bytes()
}

// BenchmarkStream measures the whole per-chunk path (the SDK's SSE framing and decoding into
// its response types, mapping, the builder and its events, the idle timer) over an in-memory
// body, reported per chunk, as llm/openai's and llm/anthropic's BenchmarkStream do. Gemini
// sends a function call whole, in one chunk, so there is no tool-arguments variant.
func BenchmarkStream(b *testing.B) {
	p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: DefaultBaseURL, APIKey: "k", KeySource: "bench", HTTPClient: &http.Client{Transport: providertest.BodyTransport{Body: benchBody()}}}})
	if err != nil {
		b.Fatal(err)
	}
	req := hiRequest(b, "gemini-2.5-flash")
	providertest.BenchStream(b, p, req, benchChunks)
}
