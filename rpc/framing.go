package rpc

import "github.com/pi-rpc/pi-rpc/internal/transport"

// Framing is how messages are delimited on stdin and stdout; the readers and the writer
// that apply it are internal/transport's.
type Framing = transport.Framing

// The framings (docs/protocol.md#transport-and-framing).
const (
	// FramingNDJSON: one JSON message per line.
	FramingNDJSON = transport.NDJSON
	// FramingLSP: a Content-Length header block before each message (vscode-jsonrpc).
	FramingLSP = transport.ContentLength
	// FramingAuto: decided by the first input byte.
	FramingAuto = transport.Auto
)

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
