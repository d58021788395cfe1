// Package providertest holds what the providers' tests share: streaming one request into
// described events, comparing event lists line by line, the fault-table runner, the
// idle-timeout suite, the cancellation checks, and the recording transports and golden
// request bodies. Only tests import it.
//
// llm/openai, llm/anthropic and llm/google each describe themselves and their mock dialect
// once, as a [Mock]: [Mock.Run] runs the cases they all share (cancelling, a consumer that
// stops, a refused connection, a bad base URL, no key), [Mock.Faults] a fault table with the
// rows they share ([Mock.HTTPFaults]), [Mock.Replays] captured streams, [Mock.Idle] the
// idle-timeout suite and [BenchStreams] the stream benchmarks; a [Describer] holds where their
// event lists differ. Each package keeps only the cases of its own wire.
package providertest

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

// Run streams req through p and returns each event as describe renders it, and the final
// message (of the done or error event); a stream that ends without one fails the test.
func Run(t *testing.T, ctx context.Context, p core.Provider, req *core.Request, describe func(core.AssistantEvent) string) ([]string, *core.AssistantMessage) {
	t.Helper()
	var got []string
	var final *core.AssistantMessage
	n := 0
	for ev := range p.Stream(ctx, req) {
		n++
		got = append(got, describe(ev))
		if ev.Type == core.EventDone || ev.Type == core.EventError {
			final = ev.Partial
		}
	}
	if final == nil {
		t.Fatalf("stream of %d events ended without done or error", n)
	}
	return got, final
}

// DiffLines reports each line where got and want differ, then all of got.
func DiffLines(t *testing.T, got, want []string) {
	t.Helper()
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("event %d: got %s, want %s", i, g, w)
		}
	}
	if t.Failed() {
		t.Logf("all events:\n\t%s", strings.Join(got, "\n\t"))
	}
}
