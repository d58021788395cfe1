// Package acp is pi-rpc's Agent Client Protocol v1 front end (docs/editors.md): the agent side
// of ACP over newline-delimited JSON-RPC 2.0, driving the same session engine as the
// JSON-RPC protocol, with one [session.Supervisor] per ACP session and several sessions per
// connection.
//
// The types are those of github.com/coder/acp-go-sdk; the connection is this package's own
// (conn.go, over internal/transport's line reader and writer), because ACP's ordering
// contract needs one ordered lane (the transport's) for everything written:
// every session/update of a turn is written before that turn's session/prompt response and
// nothing of a session before its session/new response. Requests are handled in the order
// they arrive, so two prompts sent back to back are queued, and answered, in that order;
// only opening a session (session/new, session/load: building it, starting its MCP servers)
// runs beside the reader (opening.go).
//
// The dispatch has rpc's shape: one method table (methods.go, a package-level map literal as
// in rpc and pimode) of handlers that answer at once (answered) or later (a prompt, when its
// turn settles). The connection does not run on sourcegraph/jsonrpc2, as rpc's does, because
// that would change what ACP clients read, byte for byte (the goldens in e2e/testdata/acp):
//   - jsonrpc2 writes a response as {"id":0,"result":...,"jsonrpc":"2.0"} ("jsonrpc" last),
//     and a request through a map, keys sorted ({"id":1,"jsonrpc":"2.0",...}), counting
//     ids from 0; ACP's responses ({"jsonrpc":"2.0","id":0,"result":...}) and its requests
//     to the editor (session/request_permission, fs/*, terminal/*: {"jsonrpc":"2.0","id":1,
//     ...}, ids from 1) put "jsonrpc" first, as the ACP SDKs write them;
//   - its read loop closes the connection on the first line it cannot decode, so every line
//     would still be checked first (as rpc's stream does), with ACP's own wording; and it
//     hands a client's answer only to a waiting call, while a withdrawn request's late answer
//     (a terminal the editor created anyway) goes to its own handler (conn.go).
//
// A session.Host (Options.Host) opens the sessions within --max-sessions, closes and lists
// them and holds the model catalogue, set_model's orchestration and the provider problems;
// this package words their errors in ACP's terms.
package acp
