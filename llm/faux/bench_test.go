package faux_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

const benchDeltas = 10000

// benchStream streams step once per iteration with a no-op consumer and reports the cost per
// delta: faux's own share is what is left after the builder's amortised text growth.
func benchStream(b *testing.B, p *faux.Provider, step faux.Step, deltas int) {
	req := userRequest("go")
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		p.SetResponses(step)
		for ev := range p.Stream(ctx, req) {
			if ev.Type == core.EventError {
				b.Fatalf("stream failed: %s", ev.Partial.ErrorMessage)
			}
		}
	}
	runtime.ReadMemStats(&after)
	total := float64(b.N) * float64(deltas)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/delta")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/delta")
}

// BenchmarkStreamText streams a 10,000-delta reply given delta by delta.
func BenchmarkStreamText(b *testing.B) {
	deltas := make([]string, benchDeltas)
	for i := range deltas {
		deltas[i] = "tok "
	}
	benchStream(b, faux.New(faux.WithClock(fixedClock)), faux.Reply(faux.TextDeltas(deltas...)), benchDeltas)
}

// BenchmarkStreamChunkedText streams a 10,000-rune text one rune per delta, so the chunker
// is measured too.
func BenchmarkStreamChunkedText(b *testing.B) {
	text := strings.Repeat("é", benchDeltas)
	p := faux.New(faux.WithClock(fixedClock), faux.WithChunkSize(1))
	benchStream(b, p, faux.Reply(faux.Text(text)), benchDeltas)
}

// BenchmarkStreamToolCallArgs streams a tool call whose arguments (a 10,000-rune file body)
// arrive as 16-rune fragments. Most of its cost is core's: the builder re-parses the whole
// argument prefix on every fragment.
func BenchmarkStreamToolCallArgs(b *testing.B) {
	args := map[string]any{"path": "a.txt", "content": strings.Repeat("x", benchDeltas)}
	p := faux.New(faux.WithClock(fixedClock), faux.WithChunkSize(16))
	benchStream(b, p, faux.Reply(faux.ToolCall("write", args)), (benchDeltas+40)/16)
}
