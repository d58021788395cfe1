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
// A session.Host (Options.Host) opens the sessions within --max-sessions, closes and lists
// them and holds the model catalogue, set_model's orchestration and the provider problems;
// this package words their errors in ACP's terms.
package acp
