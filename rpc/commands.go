package rpc

import (
	"context"

	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
)

// listCommands answers the session's prompt templates and skills (docs/skills.md).
func (s *Server) listCommands(_ context.Context, sup *session.Supervisor, _ *protocol.SessionParams) (*protocol.ListCommandsResult, error) {
	return &protocol.ListCommandsResult{Commands: sup.Commands()}, nil
}
