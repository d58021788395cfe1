package piclient

import (
	"context"
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// The typed calls below take protocol's params and return protocol's results, one per method
// of protocol/methods.go. Methods without params take none; the one exception to taking the
// params struct is WaitSettled, whose common form needs only an input id.

// Initialize declares the client's capabilities. It is optional: the server applies defaults
// without it (and the approval mode is fixed when it is answered,
// docs/permissions.md#choosing-the-mode). When [Options.OnPermission] is set it declares
// capabilities.permissions, as the TypeScript client does, so that the server asks the
// handler before write, edit and bash (approval mode ask) instead of running them (auto) or
// refusing them (--approval ask without the capability).
func (c *Client) Initialize(ctx context.Context, p protocol.InitializeParams) (*protocol.InitializeResult, error) {
	if c.opts.OnPermission != nil {
		p.Capabilities.Permissions = true
	}
	return callFor[protocol.InitializeResult](ctx, c, protocol.MethodInitialize, p)
}

// Shutdown aborts any busy period and persists the session; later requests get -32014.
// Follow it with [Client.Exit].
func (c *Client) Shutdown(ctx context.Context) (*protocol.ShutdownResult, error) {
	return callFor[protocol.ShutdownResult](ctx, c, protocol.MethodShutdown, nil)
}

// Exit sends the exit notification: the server exits with status 0 after shutdown, else 1.
// A spawned server's exit status is then reported by [Client.Err] once [Client.Done] closes.
func (c *Client) Exit() error {
	c.mu.Lock()
	c.exitSent = true
	c.mu.Unlock()
	return c.notify(protocol.MethodExit, nil)
}

// Describe returns the protocol's JSON schema (protocol/schema.json).
func (c *Client) Describe(ctx context.Context) (json.RawMessage, error) {
	return c.call(ctx, protocol.MethodDescribe, nil)
}

// Prompt sends a user message: it starts a run when idle; when busy it is refused with
// -32010 unless p.WhenBusy queues it.
func (c *Client) Prompt(ctx context.Context, p protocol.PromptParams) (*protocol.InputResult, error) {
	return callFor[protocol.InputResult](ctx, c, protocol.MethodPrompt, p)
}

// Continue starts a run from the current context without a new message.
func (c *Client) Continue(ctx context.Context) (*protocol.InputResult, error) {
	return callFor[protocol.InputResult](ctx, c, protocol.MethodContinue, nil)
}

// Steer queues a message delivered after the current tool batch (or starts a run when idle).
func (c *Client) Steer(ctx context.Context, p protocol.QueueParams) (*protocol.InputResult, error) {
	return callFor[protocol.InputResult](ctx, c, protocol.MethodSteer, p)
}

// FollowUp queues a message delivered when the agent would stop (or starts a run when idle).
func (c *Client) FollowUp(ctx context.Context, p protocol.QueueParams) (*protocol.InputResult, error) {
	return callFor[protocol.InputResult](ctx, c, protocol.MethodFollowUp, p)
}

// Abort ends the busy period; Aborted is false when there was nothing to abort.
func (c *Client) Abort(ctx context.Context) (*protocol.AbortResult, error) {
	return callFor[protocol.AbortResult](ctx, c, protocol.MethodAbort, nil)
}

// WaitSettled waits for the agent_settled that settles inputID, or with "" the one ending
// the current busy period (when idle, the last one). It answers after that agent_settled
// event has been written, so the event is already in the queue when it returns.
func (c *Client) WaitSettled(ctx context.Context, inputID string) (*sessionapi.Settled, error) {
	return c.WaitSettledWith(ctx, protocol.WaitSettledParams{InputID: inputID})
}

// WaitSettledWith is [Client.WaitSettled] with every param, such as a server-side timeout
// (-32015 with data {busy, lastSeq} when it expires).
func (c *Client) WaitSettledWith(ctx context.Context, p protocol.WaitSettledParams) (*sessionapi.Settled, error) {
	return callFor[sessionapi.Settled](ctx, c, protocol.MethodWaitSettled, p)
}

// ClearQueues removes every queued steer and follow-up and returns them (they settle
// cancelled).
func (c *Client) ClearQueues(ctx context.Context) (*sessionapi.QueueUpdate, error) {
	return callFor[sessionapi.QueueUpdate](ctx, c, protocol.MethodClearQueues, nil)
}

// CancelInput removes one queued input (it settles cancelled).
func (c *Client) CancelInput(ctx context.Context, p protocol.CancelInputParams) error {
	return c.Call(ctx, protocol.MethodCancelInput, p, nil)
}

// GetState returns the session's state as of the event with seq LastSeq.
func (c *Client) GetState(ctx context.Context) (*protocol.StateResult, error) {
	return callFor[protocol.StateResult](ctx, c, protocol.MethodGetState, nil)
}

// GetMessages returns the model context.
func (c *Client) GetMessages(ctx context.Context) (*protocol.MessagesResult, error) {
	// protocol.MessagesResult holds an interface slice that encoding/json cannot fill;
	// core.Messages decodes each message by its role.
	var r struct {
		Messages core.Messages `json:"messages"`
	}
	if err := c.Call(ctx, protocol.MethodGetMessages, nil, &r); err != nil {
		return nil, err
	}
	return &protocol.MessagesResult{Messages: r.Messages}, nil
}

// ListModels returns the models setModel can select.
func (c *Client) ListModels(ctx context.Context) (*protocol.ModelsResult, error) {
	return callFor[protocol.ModelsResult](ctx, c, protocol.MethodListModels, nil)
}

// SetModel switches the model (and its provider).
func (c *Client) SetModel(ctx context.Context, p protocol.SetModelParams) (*protocol.ModelResult, error) {
	return callFor[protocol.ModelResult](ctx, c, protocol.MethodSetModel, p)
}

// SetThinkingLevel sets the thinking level and returns it after clamping to the model.
func (c *Client) SetThinkingLevel(ctx context.Context, p protocol.ThinkingLevelParams) (*protocol.ThinkingLevelResult, error) {
	return callFor[protocol.ThinkingLevelResult](ctx, c, protocol.MethodSetThinkingLevel, p)
}

// SetOptions changes the options given (nil fields keep their value) and returns them all.
func (c *Client) SetOptions(ctx context.Context, p protocol.OptionsParams) (*protocol.OptionsResult, error) {
	return callFor[protocol.OptionsResult](ctx, c, protocol.MethodSetOptions, p)
}

// Compact summarises older context; it answers after compaction_end.
func (c *Client) Compact(ctx context.Context, p protocol.CompactParams) (*sessionapi.CompactionResult, error) {
	return callFor[sessionapi.CompactionResult](ctx, c, protocol.MethodCompact, p)
}

func callFor[R any](ctx context.Context, c *Client, method string, params any) (*R, error) {
	r := new(R)
	if err := c.Call(ctx, method, params, r); err != nil {
		return nil, err
	}
	return r, nil
}

// NewSession switches to a new, empty session (refused with -32010 while busy); a
// session_changed event follows.
func (c *Client) NewSession(ctx context.Context) (*sessionapi.SessionRef, error) {
	return callFor[sessionapi.SessionRef](ctx, c, protocol.MethodNewSession, nil)
}

// ListSessions lists a working directory's sessions, newest first, a page at a time: pass
// the result's NextCursor as p.Cursor for the next page.
func (c *Client) ListSessions(ctx context.Context, p protocol.ListSessionsParams) (*protocol.ListSessionsResult, error) {
	return callFor[protocol.ListSessionsResult](ctx, c, protocol.MethodListSessions, p)
}

// OpenSession switches to an existing session by file path, id or unique id prefix.
func (c *Client) OpenSession(ctx context.Context, p protocol.OpenSessionParams) (*sessionapi.SessionRef, error) {
	return callFor[sessionapi.SessionRef](ctx, c, protocol.MethodOpenSession, p)
}

// ForkSession starts a new session holding the branch before a user message entry and
// returns that message's text.
func (c *Client) ForkSession(ctx context.Context, p protocol.ForkSessionParams) (*sessionapi.ForkResult, error) {
	return callFor[sessionapi.ForkResult](ctx, c, protocol.MethodForkSession, p)
}

// GetTree returns every entry of the session, flat, with labels and the leaf.
func (c *Client) GetTree(ctx context.Context) (*sessionapi.TreeView, error) {
	return callFor[sessionapi.TreeView](ctx, c, protocol.MethodGetTree, nil)
}

// GetEntries returns the current branch's entries, each as the session file holds it, a page
// at a time: pass the result's NextCursor as p.Since for the next page.
func (c *Client) GetEntries(ctx context.Context, p protocol.GetEntriesParams) (*protocol.EntriesResult, error) {
	return callFor[protocol.EntriesResult](ctx, c, protocol.MethodGetEntries, p)
}

// NavigateTree moves the leaf to another entry, optionally summarising the branch left.
func (c *Client) NavigateTree(ctx context.Context, p protocol.NavigateTreeParams) (*sessionapi.NavigateResult, error) {
	return callFor[sessionapi.NavigateResult](ctx, c, protocol.MethodNavigateTree, p)
}

// SetLabel sets or (with an empty label) clears an entry's label.
func (c *Client) SetLabel(ctx context.Context, p protocol.SetLabelParams) error {
	return c.Call(ctx, protocol.MethodSetLabel, p, nil)
}

// SetSessionName names the session (empty clears the name) and returns the name in force.
func (c *Client) SetSessionName(ctx context.Context, p protocol.SetSessionNameParams) (*protocol.SessionNameResult, error) {
	return callFor[protocol.SessionNameResult](ctx, c, protocol.MethodSetSessionName, p)
}

// GetSessionStats returns message counts, token and cost totals and the context usage.
func (c *Client) GetSessionStats(ctx context.Context) (*sessionapi.Stats, error) {
	return callFor[sessionapi.Stats](ctx, c, protocol.MethodGetSessionStats, nil)
}

// Bash runs a shell command for the user and answers when it ends; its output streams as
// bash_update events before the answer, and its bashExecution message enters the context.
func (c *Client) Bash(ctx context.Context, p protocol.BashParams) (*sessionapi.BashResult, error) {
	return callFor[sessionapi.BashResult](ctx, c, protocol.MethodBash, p)
}

// AbortBash kills the running bash command; Aborted is false when none was running.
func (c *Client) AbortBash(ctx context.Context) (*protocol.AbortBashResult, error) {
	return callFor[protocol.AbortBashResult](ctx, c, protocol.MethodAbortBash, nil)
}

// ListTools lists the agent's tools (built-in and MCP) and the MCP servers with their status.
func (c *Client) ListTools(ctx context.Context) (*protocol.ListToolsResult, error) {
	return callFor[protocol.ListToolsResult](ctx, c, protocol.MethodListTools, nil)
}

// ListCommands lists the session's prompt templates and skills (docs/skills.md), which
// Prompt, Steer and FollowUp expand.
func (c *Client) ListCommands(ctx context.Context) (*protocol.ListCommandsResult, error) {
	return callFor[protocol.ListCommandsResult](ctx, c, protocol.MethodListCommands, nil)
}

// CreateSession opens another session on the connection, with its own working directory,
// model and queue; its events carry its sessionId. The typed calls above apply to the
// connection's first session; to address another, use [Client.Call] with params that set
// sessionId (protocol.SessionParams is embedded in every session-scoped params type).
func (c *Client) CreateSession(ctx context.Context, p protocol.CreateSessionParams) (*protocol.CreateSessionResult, error) {
	return callFor[protocol.CreateSessionResult](ctx, c, protocol.MethodCreateSession, p)
}

// CloseSession aborts and settles a session, syncs and releases its file; it returns after
// the session's agent_settled.
func (c *Client) CloseSession(ctx context.Context, sessionID string) error {
	_, err := c.call(ctx, protocol.MethodCloseSession, protocol.CloseSessionParams{SessionID: sessionID})
	return err
}
