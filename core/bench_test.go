package core_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

// BenchmarkRunTextDeltas streams a 10,000-delta reply through the loop to a no-op listener
// and reports the cost per delta.
func BenchmarkRunTextDeltas(b *testing.B) {
	const n = 10000
	deltas := make([]string, n)
	for i := range deltas {
		deltas[i] = "tok "
	}
	benchPrompt(b, nil, faux.Reply(faux.TextDeltas(deltas...)))
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/delta")
}

// BenchmarkRunParallelBatch runs one response with 50 parallel tool calls and a final reply.
func BenchmarkRunParallelBatch(b *testing.B) {
	const n = 50
	calls := make([]faux.Block, n)
	for i := range calls {
		calls[i] = faux.ToolCallWithID("c"+strconv.Itoa(i), "echo", map[string]any{"value": strconv.Itoa(i)})
	}
	benchPrompt(b, []core.Tool{&echoTool{}}, faux.Reply(calls...), faux.Reply(faux.Text("done")))
}

// benchPrompt times b.N runs of one prompt on a fresh context, each answered by steps, with
// tools and a no-op listener; setting the context and the script is left out of the time.
func benchPrompt(b *testing.B, tools []core.Tool, steps ...faux.Step) {
	b.Helper()
	model := faux.New()
	agent := core.New(core.Options{Provider: model, Model: model.Model(), Tools: tools})
	agent.Subscribe(func(context.Context, core.Event) {})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		agent.SetMessages(nil)
		model.SetResponses(steps...)
		b.StartTimer()
		run, err := agent.Prompt(user("go"))
		if err != nil {
			b.Fatal(err)
		}
		run.Wait()
	}
}
