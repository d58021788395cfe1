package providertest

import (
	"context"
	"net/http"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm"
)

// BenchStream streams req through p b.N times, failing unless each stream ends done, and
// reports the time per chunk of the chunks the body holds (ns/chunk), so the providers'
// figures compare.
func BenchStream(b *testing.B, p core.Provider, req *core.Request, chunks int) {
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var last core.AssistantEvent
		for ev := range p.Stream(context.Background(), req) {
			last = ev
		}
		if last.Type != core.EventDone {
			b.Fatalf("stream ended with %s: %s", last.Type, last.Partial.ErrorMessage)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(chunks), "ns/chunk")
}

// BenchStreams runs [BenchStream] for a text stream and a tool-argument stream (the
// benchmarks text and toolargs) of chunks chunks each: body(toolArgs) is the stream, in the
// provider's wire format, that every request to baseURL gets; newP builds the provider.
func BenchStreams(b *testing.B, newP func(llm.Endpoint) (core.Provider, error), baseURL string, model core.Model, body func(toolArgs bool) []byte, chunks int) {
	for _, bc := range []struct {
		name     string
		toolArgs bool
	}{{"text", false}, {"toolargs", true}} {
		b.Run(bc.name, func(b *testing.B) {
			p, err := newP(llm.Endpoint{BaseURL: baseURL, APIKey: "k", KeySource: "bench",
				HTTPClient: &http.Client{Transport: BodyTransport{Body: body(bc.toolArgs)}}})
			if err != nil {
				b.Fatal(err)
			}
			BenchStream(b, p, HiRequest(model), chunks)
		})
	}
}
