package session

import (
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// ReportError emits a session_error event with message: a fault outside any method, such as
// an MCP server that stopped or a call it did not answer. It may be called from any goroutine.
func (s *Supervisor) ReportError(message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emitLocked(sessionapi.EventSessionError, sessionapi.SessionError{Message: message})
}

// ReportMCPStatus emits an mcp_server_status event with payload (the front end's, such as
// protocol.MCPServerStatusUpdate): an MCP server whose tools the session uses is starting,
// ready or failed. It may be called from any goroutine.
func (s *Supervisor) ReportMCPStatus(payload any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emitLocked(sessionapi.EventMCPServerStatus, payload)
}

// SetTools replaces the agent's tools; they apply from the next model request, so a change
// during a run takes effect between turns.
func (s *Supervisor) SetTools(tools []core.Tool) { s.agent.SetTools(tools) }
