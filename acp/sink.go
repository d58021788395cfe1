package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
	"github.com/pi-rpc/pi-rpc/tools"
)

// sessionSink is one session's [sessionapi.Sink]: it gives each event the connection's next seq
// and turns it into ACP session/update notifications (or a prompt's answer) right away, in
// the writer's one lane, so the wire order is the event order.
type sessionSink struct {
	w  *writer
	st *acpSession
}

// Emit implements [sessionapi.Sink].
func (k *sessionSink) Emit(ev *sessionapi.Event) int64 {
	w := k.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	ev.Seq = w.seq
	if k.st.live {
		k.st.translateLocked(w, ev)
	}
	return w.seq
}

// LastSeq implements [sessionapi.Sink].
func (k *sessionSink) LastSeq() int64 {
	k.w.mu.Lock()
	defer k.w.mu.Unlock()
	return k.w.seq
}

// Wait implements [sessionapi.Sink].
func (k *sessionSink) Wait(ctx context.Context) { k.w.wait(ctx) }

// translateLocked queues what an event means in ACP. The caller holds w.mu.
func (st *acpSession) translateLocked(w *writer, ev *sessionapi.Event) {
	switch ev.Type {
	case sessionapi.EventAgentSettled:
		if s, ok := ev.Payload.(*sessionapi.Settled); ok {
			st.settleLocked(w, s)
		}
		return
	case sessionapi.EventModelChanged:
		if p, ok := ev.Payload.(sessionapi.ModelChanged); ok {
			st.window = p.Model.ContextWindow
		}
		return
	}
	c := ev.Core
	if c == nil {
		return
	}
	switch c.Type {
	case core.MessageUpdate:
		st.messageUpdateLocked(w, c)
	case core.MessageStart:
		if c.InputID != "" {
			st.inputStartedLocked(w, c.InputID)
		}
	case core.MessageEnd:
		if m, ok := c.Message.(*core.AssistantMessage); ok {
			st.stop, st.errMsg = m.StopReason, m.ErrorMessage
			st.usageLocked(w, m)
		}
	case core.ToolExecutionStart:
		tc := st.call(c.ToolCallID, c.ToolName)
		tc.args = c.Args
		if (c.ToolName == "edit" || c.ToolName == "write") && !st.files.through() {
			// The diff is computed before the tool runs: the permission request shows it, and
			// the completed update carries it with the file's text from before the change.
			// Through the client's files it comes from its buffers instead (fs.go).
			if p, ok := tools.PreviewChange(st.cwd, c.ToolName, c.Args); ok {
				tc.preview = &p
			}
		}
		// The call is prepared next (validated, then approved or refused). It stays pending
		// until it is let run ([acpSession.running]), so an editor never shows it running while
		// the user is asked; a call refused goes from pending to failed.
		tc.owesStart = true
		if !tc.announced {
			tc.announced = true
			st.updateLocked(w, sdk.StartToolCall(sdk.ToolCallId(c.ToolCallID), toolTitle(st.cwd, c.ToolName, c.Args),
				sdk.WithStartKind(toolKind(c.ToolName)), sdk.WithStartStatus(sdk.ToolCallStatusPending),
				sdk.WithStartLocations(toolLocations(st.cwd, c.ToolName, c.Args)), sdk.WithStartRawInput(rawInput(c.Args))))
		}
	case core.ToolExecutionUpdate:
		if content := resultContent(c.ToolName, c.Result, nil, false); len(content) > 0 {
			st.updateLocked(w, sdk.UpdateToolCall(sdk.ToolCallId(c.ToolCallID), sdk.WithUpdateContent(content)))
		}
	case core.ToolExecutionEnd:
		tc := st.call(c.ToolCallID, c.ToolName)
		tc.owesStart = false
		status := sdk.ToolCallStatusCompleted
		if c.IsError {
			status = sdk.ToolCallStatusFailed
		}
		content := resultContent(c.ToolName, c.Result, tc.preview, c.IsError)
		if tc.terminal != "" {
			// The editor's terminal shows the command's output; it stays after release.
			content = []sdk.ToolCallContent{sdk.ToolTerminalRef(tc.terminal)}
		}
		u := sdk.UpdateToolCall(sdk.ToolCallId(c.ToolCallID), sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content))
		if c.Result != nil && c.Result.Details != nil && !c.IsError {
			u.ToolCallUpdate.RawOutput = c.Result.Details
		}
		st.updateLocked(w, u)
		if c.ToolName == tools.PlanToolName && !c.IsError {
			if entries, ok := planEntries(c.Result); ok {
				st.updateLocked(w, sdk.UpdatePlan(entries...))
			}
		}
		delete(st.calls, c.ToolCallID)
	}
}

// running is the session's BeforeToolCall hook, which the supervisor runs for a call once
// it has let the call run (approved it, or needed no approval): the call goes in_progress.
func (st *acpSession) running(w *writer, callID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	tc := st.calls[callID]
	if !st.live || tc == nil || !tc.owesStart {
		return
	}
	tc.owesStart = false
	st.updateLocked(w, sdk.UpdateToolCall(sdk.ToolCallId(callID),
		sdk.WithUpdateTitle(toolTitle(st.cwd, tc.name, tc.args)), sdk.WithUpdateKind(toolKind(tc.name)),
		sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress),
		sdk.WithUpdateLocations(toolLocations(st.cwd, tc.name, tc.args)), sdk.WithUpdateRawInput(rawInput(tc.args))))
}

// rawInput is a call's arguments as ACP's rawInput (an object, never null).
func rawInput(args map[string]any) any {
	if args == nil {
		return map[string]any{}
	}
	return args
}

func (st *acpSession) call(id, name string) *toolCall {
	tc := st.calls[id]
	if tc == nil {
		tc = &toolCall{name: name}
		st.calls[id] = tc
	}
	if tc.name == "" {
		tc.name = name
	}
	return tc
}

func (st *acpSession) messageUpdateLocked(w *writer, c *core.Event) {
	u := c.Update
	if u == nil {
		return
	}
	switch u.Type {
	case core.EventTextDelta:
		st.chunkLocked(w, sdk.UpdateAgentMessageText, u.Delta)
	case core.EventThinkingDelta:
		st.chunkLocked(w, sdk.UpdateAgentThoughtText, u.Delta)
	case core.EventToolCallStart, core.EventToolCallDelta:
		id, name := u.ID, u.Name
		if u.Partial != nil && u.ContentIndex >= 0 && u.ContentIndex < len(u.Partial.Content) {
			b := u.Partial.Content[u.ContentIndex]
			if id == "" {
				id = b.ID
			}
			if name == "" {
				name = b.Name
			}
		}
		if id == "" || name == "" {
			return
		}
		tc := st.call(id, name)
		if tc.announced {
			return
		}
		tc.announced = true
		// Announced while its arguments stream: pending, titled by the tool until they are known.
		st.updateLocked(w, sdk.StartToolCall(sdk.ToolCallId(id), toolTitle(st.cwd, name, nil),
			sdk.WithStartKind(toolKind(name)), sdk.WithStartStatus(sdk.ToolCallStatusPending)))
	case core.EventToolCallEnd:
		call := u.ToolCall
		if call == nil || call.ID == "" {
			return
		}
		tc := st.call(call.ID, call.Name)
		args := call.Arguments
		title := toolTitle(st.cwd, call.Name, args)
		locs := toolLocations(st.cwd, call.Name, args)
		if !tc.announced {
			tc.announced = true
			st.updateLocked(w, sdk.StartToolCall(sdk.ToolCallId(call.ID), title,
				sdk.WithStartKind(toolKind(call.Name)), sdk.WithStartStatus(sdk.ToolCallStatusPending),
				sdk.WithStartLocations(locs), sdk.WithStartRawInput(rawInput(args))))
			return
		}
		st.updateLocked(w, sdk.UpdateToolCall(sdk.ToolCallId(call.ID), sdk.WithUpdateTitle(title),
			sdk.WithUpdateLocations(locs), sdk.WithUpdateRawInput(rawInput(args))))
	}
}
