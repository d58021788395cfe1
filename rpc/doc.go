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
//   - stream (stream.go) is jsonrpc2's ObjectStream over internal/transport's framing. It
//     adds only what the protocol asks and jsonrpc2 (v0.2.3) cannot do, each piece in its
//     file with its reason: the bad-input table (badinput.go), answered before jsonrpc2
//     sees a frame, since jsonrpc2 closes the connection on one it cannot decode; the
//     client's ids echoed byte for byte, jsonrpc2 seeing each request under the id's bytes
//     as a string id, and the responses, batches and answers-after-events that Reply cannot
//     write (replies.go); the client's answers to our requests (client_responses.go); and
//     the end-of-input latch, which keeps the Conn open after stdin ends (stream.go).
//   - Writer (writer.go) is the connection's outbox over internal/transport's writer, which
//     owns stdout: responses and requests to the client go ahead of queued
//     events, so a response never waits behind events; events go in seq order; a response
//     that must follow an event (waitSettled, compact, bash, shutdown, permission/request)
//     is placed after it. It is the supervisor's Sink: the run blocks while more than 1 MiB
//     of events waits, so a client that stops reading slows the agent instead of growing
//     the server's memory.
//   - Server (server.go, methods.go and one file per group) is the Conn's Handler, run
//     synchronously on the read goroutine (jsonrpc2.AsyncHandler would reorder requests, and
//     ordering rules 1 and 2 need them in order; HandlerWithError replies through Reply) and
//     never blocking there. The method table (methods.go, one package-level map literal as
//     in acp and pimode) maps each method to a typed handler,
//     func(ctx, session, *Params) (Result, error); methods that wait decide what they wait
//     for in the handler and return a *later (often a session.Pending), answered from its
//     own goroutine after the event it follows. Events a handler causes are held until its
//     response is queued, which gives rule 1 of docs/protocol.md#ordering-contract for every
//     method. Responses are written by the server itself (replies.go says why); jsonrpc2
//     reads requests, carries the server's own requests to the client (Conn.DispatchCall)
//     and matches the client's answers to them.
//   - The connection's sessions, the models and the provider problems are the
//     session.Host's (Options.Host): createSession and closeSession open and close sessions
//     through it, setModel switches a session's model with it.
package rpc
