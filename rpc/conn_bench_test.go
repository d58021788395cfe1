package rpc_test

import (
	"testing"
)

// The connection's cost per message, over in-process pipes: reading and checking a frame,
// handing it to jsonrpc2, handling it and writing the answer with the client's id.

// BenchmarkRequestRoundTrip is one getState request and its response.
func BenchmarkRequestRoundTrip(b *testing.B) {
	p := newPeer(b, peerOpts{})
	b.ReportAllocs()
	for b.Loop() {
		p.call("getState", nil)
	}
}

// BenchmarkRequestStringID is the same with a string id, which the server echoes as sent.
func BenchmarkRequestStringID(b *testing.B) {
	p := newPeer(b, peerOpts{})
	b.ReportAllocs()
	for b.Loop() {
		p.send(`{"jsonrpc":"2.0","id":"req-1.5e3","method":"abort"}` + "\n")
		if m := p.nextResponse(); m["id"] != "req-1.5e3" {
			b.Fatalf("response %s", m["raw"])
		}
	}
}

// BenchmarkBadInput is one line that is not JSON and its -32700.
func BenchmarkBadInput(b *testing.B) {
	p := newPeer(b, peerOpts{})
	b.ReportAllocs()
	for b.Loop() {
		p.send("not json\n")
		if m := p.nextResponse(); m["error"] == nil {
			b.Fatalf("response %s", m["raw"])
		}
	}
}

// BenchmarkBatch is a batch of four requests and its one array.
func BenchmarkBatch(b *testing.B) {
	p := newPeer(b, peerOpts{})
	b.ReportAllocs()
	for b.Loop() {
		p.send(`[{"jsonrpc":"2.0","id":1,"method":"abort"},{"jsonrpc":"2.0","id":2,"method":"getState"},{"jsonrpc":"2.0","method":"exitt"},{"jsonrpc":"2.0","id":3,"method":"nope"}]` + "\n")
		if m := p.nextResponse(); len(m["batch"].([]any)) != 3 {
			b.Fatalf("response %s", m["raw"])
		}
	}
}
