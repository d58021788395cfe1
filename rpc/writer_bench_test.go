package rpc_test

import (
	"io"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/rpc"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// BenchmarkWriterEmitTextDelta is the per-event cost of the JSON-RPC front end for the
// commonest event, a text delta of a session on a connection with several: seq, encoding,
// queueing and writing (docs/benchmarks.md, scenarios 9 and 10).
func BenchmarkWriterEmitTextDelta(b *testing.B) {
	w := rpc.NewWriter(io.Discard, 1<<20)
	w.SetEverySessionID(true)
	w.Start(rpc.FramingNDJSON)
	defer w.Close(0)
	update := core.AssistantEvent{Type: core.EventTextDelta, Delta: "the "}
	msg := &core.AssistantMessage{}
	ev := sessionapi.Event{Type: "message_update", RunID: "run_0195f3a2-7d4c-7b1e-8c3a-0123456789ab", SessionID: "0195f3a2-7d4c-7b1e-8c3a-0123456789ab",
		Core: &core.Event{Type: core.MessageUpdate, Update: &update, Message: msg}}
	b.ReportAllocs()
	for b.Loop() {
		w.Emit(&ev)
	}
}
