package faux_test

import (
	"context"
	"fmt"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

func Example() {
	p := faux.New(faux.WithChunkSize(6))
	p.SetResponses(
		faux.Reply(faux.Text("Reading it."), faux.ToolCall("read", map[string]any{"path": "a.txt"})),
	)
	req := &core.Request{Model: p.Model(), Messages: []core.Message{core.NewUserMessage("What is in a.txt?", nil, 0)}}
	for ev := range p.Stream(context.Background(), req) {
		switch ev.Type {
		case core.EventTextDelta, core.EventToolCallDelta:
			fmt.Printf("%s %q\n", ev.Type, ev.Delta)
		case core.EventToolCallEnd:
			fmt.Printf("%s %s %v\n", ev.Type, ev.ToolCall.ID, ev.ToolCall.Arguments)
		case core.EventDone:
			fmt.Printf("%s %s\n", ev.Type, ev.Reason)
		default:
			fmt.Println(ev.Type)
		}
	}
	fmt.Println(p.PendingCount(), "left")
	// Output:
	// start
	// text_start
	// text_delta "Readin"
	// text_delta "g it."
	// text_end
	// toolcall_start
	// toolcall_delta "{\"path"
	// toolcall_delta "\":\"a.t"
	// toolcall_delta "xt\"}"
	// toolcall_end call_1 map[path:a.txt]
	// done toolUse
	// 0 left
}
