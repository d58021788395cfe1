package rpc_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/rpc"
)

// wantEntries is the getEntries response json.Marshal gives for the session's branch.
func wantEntries(t *testing.T, p *peer, id string) string {
	t.Helper()
	page, err := p.sup.BranchEntries("", 0)
	if err != nil {
		t.Fatal(err)
	}
	res := protocol.EntriesResult{Entries: make([]protocol.SessionEntry, len(page.Entries))}
	for i, e := range page.Entries {
		res.Entries[i] = protocol.SessionEntry(e)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"result":` + string(b) + `}`
}

// getEntries' answer, which the writer writes from the entries themselves, is the bytes
// json.Marshal gives, alone, in a batch and under Content-Length framing, and the messages
// around it stay whole.
func TestGetEntriesOnTheWire(t *testing.T) {
	for _, framing := range []rpc.Framing{rpc.FramingNDJSON, rpc.FramingLSP} {
		t.Run(string(framing), func(t *testing.T) {
			p := newPeer(t, peerOpts{framing: framing}, faux.Reply(faux.Text("<b>a & b</b>\u2028 done")))
			send := func(s string) {
				if framing == rpc.FramingLSP {
					s = fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(s), s)
				} else {
					s += "\n"
				}
				p.send(s)
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"prompt","params":{"message":"say <hi> & go"}}`)
			p.nextResponse()
			p.untilEvent("agent_settled")
			send(`{"jsonrpc":"2.0","id":"e","method":"getEntries"}`)
			if got, want := p.nextResponse()["raw"], wantEntries(t, p, `"e"`); got != want {
				t.Fatalf("getEntries:\n got %s\nwant %s", got, want)
			}
			send(`[{"jsonrpc":"2.0","id":2,"method":"getEntries"},{"jsonrpc":"2.0","id":3,"method":"getState"}]`)
			batch := p.nextResponse()
			elems := batch["batch"].([]any)
			if len(elems) != 2 {
				t.Fatalf("batch answered with %s", batch["raw"])
			}
			if want := "[" + wantEntries(t, p, "2") + ","; !strings.HasPrefix(batch["raw"].(string), want) {
				t.Fatalf("getEntries in a batch:\n got %s\nwant it to start %s", batch["raw"], want)
			}
			send(`{"jsonrpc":"2.0","id":4,"method":"getState"}`)
			if resp := p.nextResponse(); resp["id"] != float64(4) || resp["result"] == nil {
				t.Fatalf("after getEntries: %s", resp["raw"])
			}
		})
	}
}
