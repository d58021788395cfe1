package openai

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	oa "github.com/openai/openai-go/v3"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

const benchChunks = 2000

func benchBody(toolArgs bool) []byte {
	var b bytes.Buffer
	head := `data: {"id":"chatcmpl-B","object":"chat.completion.chunk","created":1754000000,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_b3f1157249","choices":[{"index":0,"delta":`
	tail := `,"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n"
	if toolArgs {
		b.WriteString(head + `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"write","arguments":""}}]}` + tail)
		b.WriteString(head + `{"tool_calls":[{"index":0,"function":{"arguments":"{\"content\":\""}}]}` + tail)
		for i := range benchChunks {
			b.WriteString(head + `{"tool_calls":[{"index":0,"function":{"arguments":"line ` + strconv.Itoa(i%10) + ` of the file\\n"}}]}` + tail)
		}
		b.WriteString(head + `{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]}` + tail)
		b.WriteString(`data: {"id":"chatcmpl-B","object":"chat.completion.chunk","created":1754000000,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}` + "\n\n")
	} else {
		b.WriteString(head + `{"role":"assistant","content":"","refusal":null}` + tail)
		for range benchChunks {
			b.WriteString(head + `{"content":" token"}` + tail)
		}
		b.WriteString(`data: {"id":"chatcmpl-B","object":"chat.completion.chunk","created":1754000000,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n")
	}
	b.WriteString(`data: {"id":"chatcmpl-B","object":"chat.completion.chunk","created":1754000000,"model":"gpt-4.1-2025-04-14","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":2000,"total_tokens":2100,"prompt_tokens_details":{"cached_tokens":0}}}` + "\n\ndata: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkStream measures the whole per-chunk path (SSE framing, JSON decoding, mapping,
// the builder and its events, the idle timer) over an in-memory body, reported per chunk.
// Note that a tool-argument chunk re-parses the accumulated arguments (internal/partialjson),
// so its cost grows with the arguments' length; 2,000 fragments make ~40 KB of arguments.
func BenchmarkStream(b *testing.B) {
	m := mock(b)
	providertest.BenchStreams(b, m.New, "http://bench.invalid/v1", m.Model, benchBody, benchChunks)
}

// BenchmarkMapChunk isolates decoding (by the SDK) and mapping one chunk (no HTTP, no SSE
// framing).
func BenchmarkMapChunk(b *testing.B) {
	text := []byte(`{"id":"chatcmpl-B","object":"chat.completion.chunk","created":1754000000,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_b3f1157249","choices":[{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}],"usage":null}`)
	args := []byte(`{"id":"chatcmpl-B","object":"chat.completion.chunk","created":1754000000,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ab"}}]},"logprobs":null,"finish_reason":null}],"usage":null}`)
	model := core.Model{ID: "gpt-4.1"}
	for _, bc := range []struct {
		name string
		data []byte
	}{{"text", text}, {"toolargs", args}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			builder := core.NewMessageBuilder(&model, 0, func(core.AssistantEvent) bool { return true })
			m := newMapper(builder, model.ID)
			for i := range b.N {
				if i%1000 == 0 {
					// Keep the accumulated text or arguments short so the figure is per chunk,
					// not per accumulated byte.
					builder = core.NewMessageBuilder(&model, 0, func(core.AssistantEvent) bool { return true })
					m = newMapper(builder, model.ID)
				}
				var c oa.ChatCompletionChunk
				if err := json.Unmarshal(bc.data, &c); err != nil {
					b.Fatal(err)
				}
				m.apply(&c)
			}
		})
	}
}
