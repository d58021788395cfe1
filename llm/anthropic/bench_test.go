package anthropic

import (
	"bytes"
	"strconv"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// benchChunks matches llm/openai's benchmark, so the per-chunk figures compare.
const benchChunks = 2000

func benchBody(toolArgs bool) []byte {
	var b bytes.Buffer
	ev := func(typ, data string) { b.WriteString("event: " + typ + "\ndata: " + data + "\n\n") }
	ev("message_start", `{"type":"message_start","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}`)
	ev("ping", `{"type": "ping"}`)
	if toolArgs {
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"write","input":{}}}`)
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"content\":\""}}`)
		for i := range benchChunks {
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"line `+strconv.Itoa(i%10)+` of the file\\n"}}`)
		}
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"}"}}`)
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":2000}}`)
	} else {
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		for range benchChunks {
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" token"}}`)
		}
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2000}}`)
	}
	ev("message_stop", `{"type":"message_stop"}`)
	return b.Bytes()
}

// BenchmarkStream measures the whole per-chunk path (SSE framing, JSON decoding, mapping,
// the builder and its events, the idle timer) over an in-memory body, reported per chunk, as
// llm/openai's BenchmarkStream does for Chat Completions.
func BenchmarkStream(b *testing.B) {
	m := mock(b)
	providertest.BenchStreams(b, m.New, "http://bench.invalid", m.Model, benchBody, benchChunks)
}

var (
	benchTextEvent = []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" token"}}`)
	benchArgsEvent = []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"ab"}}`)
)

// BenchmarkMapEvent isolates decoding and mapping one event (no HTTP, no SSE framing), the
// counterpart of llm/openai's BenchmarkMapChunk.
func BenchmarkMapEvent(b *testing.B) {
	model := core.Model{ID: "claude-sonnet-4-5"}
	for _, bc := range []struct {
		name string
		data []byte
		open string
	}{
		{"text", benchTextEvent, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		{"toolargs", benchArgsEvent, `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"write","input":{}}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var m *mapper
			for i := range b.N {
				if i%1000 == 0 {
					// Keep the accumulated text or arguments short so the figure is per event.
					builder := core.NewMessageBuilder(&model, 0, func(core.AssistantEvent) bool { return true })
					m = newMapper(builder, &model)
					var start event
					if err := failure.DecodeObject([]byte(bc.open), &start); err != nil {
						b.Fatal(err)
					}
					m.apply(&start)
				}
				var e event
				if err := failure.DecodeObject(bc.data, &e); err != nil {
					b.Fatal(err)
				}
				m.apply(&e)
			}
		})
	}
}

// BenchmarkDecodeEvent compares decoding one text delta into the lean event struct with
// decoding it into the SDK's MessageStreamEventUnion, which is why the provider does the
// former.
func BenchmarkDecodeEvent(b *testing.B) {
	b.Run("lean", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var e event
			if err := failure.DecodeObject(benchTextEvent, &e); err != nil || e.Delta.Text != " token" {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var e sdk.MessageStreamEventUnion
			if err := e.UnmarshalJSON(benchTextEvent); err != nil || e.Delta.Text != " token" {
				b.Fatal(err)
			}
		}
	})
}
