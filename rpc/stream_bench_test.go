package rpc

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"
)

// benchStreamRequest is the stream's own work for one request, without the pipes and
// goroutine hand-offs of the round-trip benchmarks: checking the frame, jsonrpc2 decoding
// what it is handed, and the response written with the client's id.
func benchStreamRequest(b *testing.B, frame string) {
	w := NewWriter(io.Discard, 1<<20)
	w.Start(FramingNDJSON)
	defer w.Close(0)
	s := newStream(nil, FramingNDJSON, 1<<20, w, zerolog.Nop())
	in := []byte(frame)
	result := []byte(`{"aborted":false}`)
	b.ReportAllocs()
	for b.Loop() {
		msgs := s.accept(in)
		var req jsonrpc2.Request
		if len(msgs) != 1 || json.Unmarshal(msgs[0], &req) != nil {
			b.Fatalf("accept(%s) = %q", in, msgs)
		}
		if err := s.respond(req.ID.Str, result, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStreamRequestNumberID(b *testing.B) {
	benchStreamRequest(b, `{"jsonrpc":"2.0","id":17,"method":"abort"}`)
}

func BenchmarkStreamRequestStringID(b *testing.B) {
	benchStreamRequest(b, `{"jsonrpc":"2.0","id":"req-1.5e3","method":"abort","params":{"sessionId":"0195f3a2-7d4c-7b1e-8c3a-0123456789ab"}}`)
}
