package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/tools"
)

// terminalGrace bounds each request that cleans up after a command (terminal/kill, output,
// release): a client that never answers them cannot hold the bash call, which has already
// ended or been abandoned.
const terminalGrace = 5 * time.Second

// terminalRunner runs a session's bash commands in the client's terminals (docs/editors.md,
// "Editor files and terminals"): terminal/create, then the tool call shows the terminal
// live, terminal/wait_for_exit, terminal/output and terminal/release. An abort or the
// command's timeout kills it first (terminal/kill).
type terminalRunner struct {
	w  *writer
	st *acpSession
}

// RunCommand implements [tools.CommandRunner].
func (r *terminalRunner) RunCommand(ctx context.Context, c tools.Command) (tools.CommandOutput, error) {
	sid := sdk.SessionId(r.st.id)
	req := sdk.CreateTerminalRequest{SessionId: sid, Command: c.Shell, Args: c.Args, Cwd: &c.Dir}
	if c.OutputLimit > 0 {
		req.OutputByteLimit = sdk.Ptr(c.OutputLimit)
	}
	for _, kv := range c.Env {
		name, value, _ := strings.Cut(kv, "=")
		req.Env = append(req.Env, sdk.EnvVariable{Name: name, Value: value})
	}
	var created sdk.CreateTerminalResponse
	if err := callClientOrUndo(ctx, r.w, sdk.ClientMethodTerminalCreate, req, &created, r.releaseLate); err != nil {
		if ctx.Err() != nil {
			return tools.CommandOutput{Cancelled: true}, nil
		}
		return tools.CommandOutput{}, fmt.Errorf("The editor could not start the command: %w", err)
	}
	term := created.TerminalId

	r.w.mu.Lock()
	if tc := r.st.calls[c.ToolCallID]; tc != nil {
		tc.terminal = term
	}
	r.st.updateLocked(r.w, sdk.UpdateToolCall(sdk.ToolCallId(c.ToolCallID), sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolTerminalRef(term)})))
	r.w.mu.Unlock()

	waitCtx, stopWait := context.WithCancel(ctx)
	defer stopWait()
	timedOut := make(chan struct{})
	if c.Timeout > 0 && c.Clock != nil {
		timer := c.Clock.AfterFunc(c.Timeout, func() {
			close(timedOut)
			stopWait()
		})
		defer timer.Stop()
	}
	var exit sdk.WaitForTerminalExitResponse
	werr := callClient(waitCtx, r.w, sdk.ClientMethodTerminalWaitForExit, sdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: term}, &exit)
	var out tools.CommandOutput
	if werr != nil {
		switch {
		case ctx.Err() != nil:
			out.Cancelled = true
		case isClosed(timedOut):
			out.TimedOut = true
		}
	}

	// The clean-up runs whatever ctx says: the terminal is killed when the command did not
	// end by itself, then its output read and the terminal released.
	cctx, cancel := context.WithTimeout(context.Background(), terminalGrace)
	defer cancel()
	ref := sdk.KillTerminalRequest{SessionId: sid, TerminalId: term}
	if werr != nil {
		_ = callClient(cctx, r.w, sdk.ClientMethodTerminalKill, ref, nil)
	}
	var o sdk.TerminalOutputResponse
	oerr := callClient(cctx, r.w, sdk.ClientMethodTerminalOutput, sdk.TerminalOutputRequest{SessionId: sid, TerminalId: term}, &o)
	_ = callClient(cctx, r.w, sdk.ClientMethodTerminalRelease, sdk.ReleaseTerminalRequest{SessionId: sid, TerminalId: term}, nil)

	switch {
	case out.Cancelled || out.TimedOut:
	case werr != nil:
		return tools.CommandOutput{}, fmt.Errorf("The editor's terminal failed while the command ran: %w", werr)
	case oerr != nil:
		return tools.CommandOutput{}, fmt.Errorf("The editor's terminal did not give the command's output: %w", oerr)
	default:
		if exit.Signal == nil {
			out.ExitCode = exit.ExitCode
		}
	}
	out.Output, out.Truncated = o.Output, o.Truncated
	return out, nil
}

// releaseLate kills and releases a terminal the client created after its terminal/create was
// withdrawn (an abort crossed the answer): nobody waits for that command any more.
func (r *terminalRunner) releaseLate(m *message) {
	var created sdk.CreateTerminalResponse
	if m.Error != nil || json.Unmarshal(m.Result, &created) != nil || created.TerminalId == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), terminalGrace)
	defer cancel()
	sid := sdk.SessionId(r.st.id)
	_ = callClient(ctx, r.w, sdk.ClientMethodTerminalKill, sdk.KillTerminalRequest{SessionId: sid, TerminalId: created.TerminalId}, nil)
	_ = callClient(ctx, r.w, sdk.ClientMethodTerminalRelease, sdk.ReleaseTerminalRequest{SessionId: sid, TerminalId: created.TerminalId}, nil)
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
