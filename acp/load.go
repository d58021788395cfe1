package acp

import (
	"encoding/json"
	"path/filepath"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
)

// loadSession opens a saved session and replays its whole branch as session/update
// notifications, then answers: the user's messages as user_message_chunk, the agent's text
// and thinking as chunks, each tool call as tool_call and its result as tool_call_update.
func (s *Server) loadSession(id json.RawMessage, params json.RawMessage) {
	err := s.notInitialized(sdk.AgentMethodSessionLoad)
	var p sdk.LoadSessionRequest
	if err == nil {
		p, err = decode[sdk.LoadSessionRequest](params)
	}
	if err == nil {
		err = checkCwd(p.Cwd)
	}
	if err == nil && p.SessionId == "" {
		err = reqError(codeInvalidParams, "Invalid params: sessionId is required", nil)
	}
	if err == nil && s.openOrLoading(string(p.SessionId)) {
		err = reqError(codeInvalidRequest, "session "+string(p.SessionId)+" is already open on this connection", nil)
	}
	if err != nil {
		s.w.fail(id, err)
		return
	}
	mcps, err := mcpServers(p.McpServers, p.Cwd)
	if err != nil {
		s.w.fail(id, err)
		return
	}
	s.openAsync(id, string(p.SessionId), session.OpenRequest{Cwd: filepath.Clean(p.Cwd), SessionFile: string(p.SessionId)}, OpenExtra{MCPServers: mcps}, func(st *acpSession) {
		history := st.sup.Messages()
		st.goLive(s.w, id, sdk.LoadSessionResponse{Modes: st.modes(), ConfigOptions: s.configOptions(st)}, func() {
			for _, m := range history {
				st.replayLocked(s.w, m)
			}
		})
		if st.loadedUsage != nil {
			s.w.mu.Lock()
			st.updateLocked(s.w, *st.loadedUsage)
			s.w.mu.Unlock()
		}
		st.announceCommands(s.w)
	})
}

// replayLocked queues the updates that show one message of the history. The caller holds
// w.mu.
func (st *acpSession) replayLocked(w *writer, m core.Message) {
	switch m := m.(type) {
	case *core.UserMessage:
		for _, c := range m.Content {
			switch c.Type {
			case core.ContentText:
				st.updateLocked(w, sdk.UpdateUserMessageText(c.Text))
			case core.ContentImage:
				st.updateLocked(w, sdk.UpdateUserMessage(sdk.ImageBlock(c.Data, c.MimeType)))
			}
		}
	case *core.AssistantMessage:
		for _, c := range m.Content {
			switch c.Type {
			case core.ContentText:
				st.chunkLocked(w, sdk.UpdateAgentMessageText, c.Text)
			case core.ContentThinking:
				st.chunkLocked(w, sdk.UpdateAgentThoughtText, c.Thinking)
			case core.ContentToolCall:
				st.updateLocked(w, sdk.StartToolCall(sdk.ToolCallId(c.ID), toolTitle(st.cwd, c.Name, c.Arguments),
					sdk.WithStartKind(toolKind(c.Name)), sdk.WithStartStatus(sdk.ToolCallStatusPending),
					sdk.WithStartLocations(toolLocations(st.cwd, c.Name, c.Arguments)), sdk.WithStartRawInput(rawInput(c.Arguments))))
			}
		}
	case *core.ToolResultMessage:
		status := sdk.ToolCallStatusCompleted
		if m.IsError {
			status = sdk.ToolCallStatusFailed
		}
		r := &core.ToolResult{Content: m.Content, Details: m.Details}
		st.updateLocked(w, sdk.UpdateToolCall(sdk.ToolCallId(m.ToolCallID), sdk.WithUpdateStatus(status),
			sdk.WithUpdateContent(resultContent(m.ToolName, r, nil, m.IsError))))
	}
}
