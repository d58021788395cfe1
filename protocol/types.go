package protocol

import (
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// genevents writes events_gen.go from internal/eventjson; genschema then reflects schema.json
// from the package's types, events_gen.go's included.
//
//go:generate go run ./internal/genevents
//go:generate go run ./internal/genschema

// Image is an image attached to a message: base64 data and its MIME type.
type Image struct {
	Type     string `json:"type" jsonschema:"enum=image"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
}

// ClientInfo names the client.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// ClientCapabilities are what the client can do.
type ClientCapabilities struct {
	// Permissions: the client answers permission/request.
	Permissions bool `json:"permissions,omitempty"`
	// PartialMessages: message_update events carry the whole partial message.
	PartialMessages bool `json:"partialMessages,omitempty"`
}

// InitializeParams are initialize's params. Every field is optional.
type InitializeParams struct {
	ProtocolVersion int                `json:"protocolVersion,omitempty"`
	ClientInfo      *ClientInfo        `json:"clientInfo,omitempty"`
	Capabilities    ClientCapabilities `json:"capabilities,omitempty"`
	// MCPServers are MCP servers to connect, by name, in the mcpServers shape of config files
	// (docs/mcp.md). initialize answers at once; each server's start is reported as
	// mcp_server_status events, and a prompt waits for the servers still starting.
	MCPServers map[string]MCPServerConfig `json:"mcpServers,omitempty"`
}

// ServerInfo names the server.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ServerCapabilities are what the server offers.
type ServerCapabilities struct {
	PartialMessages bool `json:"partialMessages"`
	Permissions     bool `json:"permissions"`
}

// Problem is a configuration problem that keeps the agent from working.
type Problem struct {
	// Kind is noApiKey, noProvider or mcpServer (an MCP server failed, or its last call
	// faulted; Server names it).
	Kind    string `json:"kind" jsonschema:"enum=noApiKey,enum=noProvider,enum=mcpServer"`
	Message string `json:"message"`
	Server  string `json:"server,omitempty"`
}

// InitializeResult is initialize's result. Model is absent when no model provider is
// configured (the noProvider problem).
type InitializeResult struct {
	ProtocolVersion int                `json:"protocolVersion"`
	ServerInfo      ServerInfo         `json:"serverInfo"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	Model           *core.Model        `json:"model,omitempty"`
	SessionID       string             `json:"sessionId"`
	SessionFile     string             `json:"sessionFile,omitempty"`
	Problems        []Problem          `json:"problems"`
	Warnings        []string           `json:"warnings"`
	// Sandbox is the OS sandbox of the model's commands (--sandbox); absent when off.
	Sandbox *SandboxStatus `json:"sandbox,omitempty"`
}

// SandboxChoice is a session's sandbox: each field absent keeps the server's choice (in
// setOptions, the session's), and neither mode nor network may loosen the server's
// (createSession fails as for a cwd that is not a directory).
type SandboxChoice struct {
	Mode    string `json:"mode,omitempty" jsonschema:"enum=off,enum=read-only,enum=workspace-write"`
	Network string `json:"network,omitempty" jsonschema:"enum=on,enum=off"`
	// Write lists more directories this session's commands may write (workspace-write
	// only), besides the server's --sandbox-write: each an existing directory, absolute or
	// relative to the session's cwd. In setOptions an empty list drops the session's.
	Write []string `json:"write,omitempty"`
}

// SandboxStatus is what the start-up probe found for --sandbox (docs/permissions.md#the-sandbox).
type SandboxStatus struct {
	Mode string `json:"mode" jsonschema:"enum=read-only,enum=workspace-write"`
	// Enforced is true when the kernel enforces the mode; when false each bash call fails
	// with the reason, or runs unsandboxed and says so (--sandbox-fallback warn).
	Enforced bool `json:"enforced"`
	// LandlockABI is the kernel's Landlock ABI version, 0 without Landlock.
	LandlockABI int `json:"landlockABI"`
	// Network is how the network is cut off: a network namespace, Landlock's TCP rules only,
	// or not at all (--sandbox-network on, or nothing to cut it with).
	Network string `json:"network" jsonschema:"enum=netns,enum=landlock-tcp,enum=none"`
	// Missing names each thing the kernel lacks for the mode and what it leaves open.
	Missing []string `json:"missing"`
}

// ShutdownResult is shutdown's result.
type ShutdownResult struct {
	SessionFile string `json:"sessionFile,omitempty"`
}

// CancelRequestParams are $/cancelRequest's params: the id of the request to cancel.
type CancelRequestParams struct {
	ID any `json:"id" jsonschema:"oneof_type=string;integer"`
}

// PromptParams are prompt's params.
type PromptParams struct {
	SessionParams
	Message string  `json:"message"`
	Images  []Image `json:"images,omitempty"`
	// WhenBusy queues the prompt as a steer or follow-up instead of refusing it while busy.
	WhenBusy string `json:"whenBusy,omitempty" jsonschema:"enum=reject,enum=steer,enum=followUp"`
}

// QueueParams are steer's and followUp's params.
type QueueParams struct {
	SessionParams
	Message string  `json:"message"`
	Images  []Image `json:"images,omitempty"`
	// WhenIdle says what to do when nothing runs: start a run (the default) or reject.
	WhenIdle string `json:"whenIdle,omitempty" jsonschema:"enum=start,enum=reject"`
}

// InputResult answers prompt, steer, followUp and continue.
type InputResult struct {
	InputID     string `json:"inputId"`
	Disposition string `json:"disposition" jsonschema:"enum=started,enum=queued"`
}

// Empty is the params or result of methods that take or return nothing.
type Empty struct{}

// AbortResult is abort's result: whether a busy period was aborted.
type AbortResult struct {
	Aborted bool `json:"aborted"`
}

// WaitSettledParams are waitSettled's params.
type WaitSettledParams struct {
	SessionParams
	InputID   string `json:"inputId,omitempty"`
	TimeoutMs int64  `json:"timeoutMs,omitempty"`
}

// CancelInputParams are cancelInput's params.
type CancelInputParams struct {
	SessionParams
	InputID string `json:"inputId"`
}

// StateResult is getState's result. Model is absent when no model provider is configured
// (the noProvider problem).
type StateResult struct {
	Model         *core.Model        `json:"model,omitempty"`
	ThinkingLevel core.ThinkingLevel `json:"thinkingLevel"`
	Options       sessionapi.Options `json:"options"`
	SessionID     string             `json:"sessionId"`
	SessionFile   string             `json:"sessionFile,omitempty"`
	SessionName   string             `json:"sessionName,omitempty"`
	// Settled is true exactly when the last busy period's agent_settled has been written.
	Settled      bool                 `json:"settled"`
	Busy         sessionapi.BusyState `json:"busy"`
	BashRunning  bool                 `json:"bashRunning"`
	ContextFiles []string             `json:"contextFiles"`
	Problems     []Problem            `json:"problems"`
	// LastSeq is the seq of the last event this state reflects.
	LastSeq int64 `json:"lastSeq"`
	// Sandbox is the OS sandbox of the model's commands (--sandbox); absent when off.
	Sandbox *SandboxStatus `json:"sandbox,omitempty"`
}

// MessagesResult is getMessages' result: the model context.
type MessagesResult struct {
	Messages core.Messages `json:"messages"`
}

// ModelsResult is listModels' result.
type ModelsResult struct {
	Models []core.Model `json:"models"`
}

// SetModelParams are setModel's params.
type SetModelParams struct {
	SessionParams
	Provider string `json:"provider,omitempty"`
	ModelID  string `json:"modelId"`
}

// ModelResult is setModel's result.
type ModelResult struct {
	Model         core.Model         `json:"model"`
	ThinkingLevel core.ThinkingLevel `json:"thinkingLevel"`
}

// ThinkingLevelParams are setThinkingLevel's params.
type ThinkingLevelParams struct {
	SessionParams
	Level core.ThinkingLevel `json:"level" jsonschema:"enum=off,enum=minimal,enum=low,enum=medium,enum=high,enum=xhigh"`
}

// ThinkingLevelResult is setThinkingLevel's result: the level set, after clamping.
type ThinkingLevelResult struct {
	Level core.ThinkingLevel `json:"level"`
}

// OptionsParams are setOptions' params; absent fields keep their value.
type OptionsParams struct {
	SessionParams
	SteeringMode   *core.QueueMode     `json:"steeringMode,omitempty" jsonschema:"enum=one-at-a-time,enum=all"`
	FollowUpMode   *core.QueueMode     `json:"followUpMode,omitempty" jsonschema:"enum=one-at-a-time,enum=all"`
	AutoRetry      *bool               `json:"autoRetry,omitempty"`
	AutoCompaction *bool               `json:"autoCompaction,omitempty"`
	ToolExecution  *core.ExecutionMode `json:"toolExecution,omitempty" jsonschema:"enum=parallel,enum=sequential"`
	Approval       *string             `json:"approval,omitempty" jsonschema:"enum=auto,enum=ask,enum=deny-writes"`
	// Sandbox changes the session's sandbox from its next command on
	// (docs/permissions.md#the-sandbox); it may not loosen the server's --sandbox.
	Sandbox *SandboxChoice `json:"sandbox,omitempty"`
}

// OptionsResult is setOptions' result: the options in force.
type OptionsResult struct {
	Options sessionapi.Options `json:"options"`
	// Sandbox is the session's sandbox, as getState reports it; absent when off.
	Sandbox *SandboxStatus `json:"sandbox,omitempty"`
}

// CompactParams are compact's params.
type CompactParams struct {
	SessionParams
	CustomInstructions string `json:"customInstructions,omitempty"`
}

// SessionParams name the session a method applies to. Every session-scoped method takes
// them; absent, the method applies to the connection's first open session, so a client that
// uses one session never sends them.
type SessionParams struct {
	// SessionID is a session's current id (createSession's answer, getState's sessionId; it
	// changes with newSession, openSession and forkSession, as session_changed says).
	SessionID string `json:"sessionId,omitempty"`
}

// CreateSessionParams are createSession's params.
type CreateSessionParams struct {
	// Cwd is the session's working directory (absolute, or relative to the server's);
	// default the server's --cwd. Tools are confined to it and its sessions are listed there.
	Cwd string `json:"cwd,omitempty"`
	// Model is a model id, or provider/id; default the server's model.
	Model string `json:"model,omitempty"`
	// SessionFile resumes a session file or id instead of starting a new session.
	SessionFile string `json:"sessionFile,omitempty"`
	// MCPServers are MCP servers of this session only, in the shape of initialize's: started
	// without being waited for (mcp_server_status events with the session's id; its prompts
	// wait for them), their tools join the process's MCP tools for this session, and they
	// stop when it closes.
	MCPServers map[string]MCPServerConfig `json:"mcpServers,omitempty"`
	// Sandbox runs this session's commands in a sandbox at least as strict as the server's
	// --sandbox (docs/permissions.md#the-sandbox); absent: the server's.
	Sandbox *SandboxChoice `json:"sandbox,omitempty"`
}

// CreateSessionResult is createSession's result.
type CreateSessionResult struct {
	SessionID   string     `json:"sessionId"`
	SessionFile string     `json:"sessionFile,omitempty"`
	Cwd         string     `json:"cwd"`
	Model       core.Model `json:"model"`
	// Sandbox is the session's sandbox, as getState reports it; absent when off.
	Sandbox *SandboxStatus `json:"sandbox,omitempty"`
}

// CloseSessionParams are closeSession's params.
type CloseSessionParams struct {
	SessionID string `json:"sessionId"`
}
