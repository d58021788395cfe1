// Package mcp connects pi-rpc to Model Context Protocol servers and turns their tools into
// agent tools, on the official Go SDK (github.com/modelcontextprotocol/go-sdk) as the client.
//
// Servers come as [ServerConfig] values: read from an mcpServers object in the shape Claude
// Code, Cursor and Zed use ([ParseConfig], [ParseServers], [LoadFile], layered with [Merge]),
// or filled in directly by a caller that maps another shape. A [Set] owns the connections of
// one session: [Connect] (or [NewSet] and [Set.Add]) starts them and waits, [Set.Start] starts
// them without waiting ([Options.OnStatus] and the log report each start's beginning and end,
// [Set.Starting] and [Set.WaitStarted] say whether one is under way), [Set.Tools] lists their
// tools as core.Tool values named mcp__<server>__<tool>, [Set.Status] says how each server is
// doing, and [Set.Close] ends them.
//
// Transports: stdio (the server is a child process in its own process group, its stderr copied
// to the log, the group killed on close), streamable HTTP and SSE. ${VAR} and ${VAR:-default}
// in a server's command, args, env, cwd, url and headers are resolved from the environment; an
// unset variable fails that server with an error naming it.
//
// Faults stay with the server and the call: a server that cannot start, whose connection
// ends, or that does not answer within the call timeout gives the call an error result naming
// the server and the reason, and is reported through [Options.OnFault]; the other servers and
// the agent keep working. Cancelling a call's context (an abort) returns at once, and the SDK
// tells the server with notifications/cancelled. notifications/tools/list_changed lists the
// tools again and calls [Options.OnToolsChanged].
//
// The package knows nothing of the protocol or the session: the approval rule reads
// [Tool.NeedsApproval] (every tool without readOnlyHint needs approval in ask mode). The user
// documentation is docs/mcp.md.
package mcp
