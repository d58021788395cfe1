// Package rpc serves pi-rpc's JSON-RPC 2.0 protocol on one connection (stdin and stdout of
// the process), on top of github.com/sourcegraph/jsonrpc2.
//
// A session on the wire (ndjson framing; --framing lsp uses Content-Length headers instead):
//
//	> {"jsonrpc":"2.0","id":1,"method":"prompt","params":{"message":"hi"}}
//	< {"jsonrpc":"2.0","id":1,"result":{"inputId":"in1","disposition":"started"}}
//	< {"jsonrpc":"2.0","method":"event","params":{"type":"agent_start","seq":1,"runId":"r1","sessionId":"…"}}
//	< {"jsonrpc":"2.0","method":"event","params":{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Hel"},"seq":7,"runId":"r1"}}
//	< …
//	< {"jsonrpc":"2.0","method":"event","params":{"type":"agent_settled","inputs":[{"inputId":"in1","outcome":"completed"}],"aborted":false,"lastSeq":12,"seq":12,"sessionId":"…"}}
//
// The pieces:
//
//   - stream (stream.go) reads frames with internal/transport's readers, answers every kind
//     of bad input itself (on the transport's classification) so that nothing malformed
//     reaches jsonrpc2 (which would close the connection), replaces each request's id with
//     an internal one and restores the client's bytes on the response, and turns a batch
//     into one array.
//   - Writer (writer.go) is the connection's outbox over internal/transport's writer, which
//     owns stdout: responses and requests to the client go ahead of queued
//     events, so a response never waits behind events; events go in seq order; a response
//     that must follow an event (waitSettled, compact, bash, shutdown, permission/request)
//     is placed after it. It is the supervisor's Sink: the run blocks while more than 1 MiB
//     of events waits, so a client that stops reading slows the agent instead of growing
//     the server's memory.
//   - Server (server.go, methods.go and one file per group) handles requests in order on the
//     read goroutine and never blocks there. The method table (methods.go) maps each method
//     to a typed handler, func(ctx, session, *Params) (Result, error); methods that wait
//     decide what they wait for in the handler and return a *later (often a session.Pending),
//     answered from its own goroutine after the event it follows. Events a handler causes are held
//     until its response is queued, which gives rule 1 of docs/protocol.md#ordering-contract
//     for every method.
//     Responses are written by the server itself (one encoding of the result); jsonrpc2
//     reads requests and carries the server's own requests to the client.
//   - The connection's sessions, the models and the provider problems are the
//     session.Host's (Options.Host): createSession and closeSession open and close sessions
//     through it, setModel switches a session's model with it.
package rpc
