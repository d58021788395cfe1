package providertest

import (
	"context"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
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
