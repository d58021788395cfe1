package rpc

import (
	"context"

	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
)

// MCPHost is the session's MCP servers as the protocol sees them; cmd/pi-rpc implements it
// over tools/mcp.
type MCPHost interface {
	// Add starts initialize's mcpServers and returns at once; each server's start is
	// reported as mcp_server_status events, its tools become the agent's when it is
	// connected, and a prompt waits for the servers still starting.
	Add(servers map[string]protocol.MCPServerConfig)
	// Servers is every server's status, sorted by name.
	Servers() []protocol.MCPServerStatus
	// Problems is one problem per failed or faulting server.
	Problems() []protocol.Problem
}

// mcpTool is what listTools reads of an MCP tool (tools/mcp's Tool).
type mcpTool interface {
	Server() string
}

func (s *Server) listTools(_ context.Context, sup *session.Supervisor, _ *protocol.Empty) (*protocol.ListToolsResult, error) {
	res := protocol.ListToolsResult{Tools: []protocol.ToolDescription{}, MCPServers: []protocol.MCPServerStatus{}}
	for _, t := range sup.Agent().State().Tools {
		info := t.Info()
		d := protocol.ToolDescription{Name: info.Name, Description: info.Description, Source: "builtin",
			NeedsApproval: session.NeedsApproval(t)}
		if m, ok := t.(mcpTool); ok {
			d.Source, d.Server = "mcp", m.Server()
		}
		res.Tools = append(res.Tools, d)
	}
	if s.opts.MCP != nil {
		res.MCPServers = nonNil(s.opts.MCP.Servers())
	}
	return &res, nil
}
