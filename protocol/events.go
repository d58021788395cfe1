package protocol

import (
	"github.com/invopop/jsonschema"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// Every event reaches the client as the params of an "event" notification: one flat object
// holding the event's type, its own fields and the envelope fields seq, runId and (on
// agent_start, agent_settled and session_changed) sessionId. The names type, seq, runId and
// sessionId are reserved: no event uses them for a field of its own. The types below
// document each event; schema.json is generated from them, and tests validate what core and
// session really emit against it.

// Envelope holds the envelope fields of events outside a run's agent_start..agent_end.
type Envelope struct {
	// Seq numbers the connection's events from 1, without gaps.
	Seq int64 `json:"seq"`
	// RunID is the run the event belongs to, present when a run is active.
	RunID string `json:"runId,omitempty"`
}

// RunEnvelope holds the envelope fields of the core events, which always belong to a run.
type RunEnvelope struct {
	// Seq numbers the connection's events from 1, without gaps.
	Seq int64 `json:"seq"`
	// RunID is the run the event belongs to ("r1", "r2", ...): every event from agent_start
	// to agent_end inclusive carries it.
	RunID string `json:"runId"`
}

// AgentStartEvent starts a run.
type AgentStartEvent struct {
	Type string `json:"type" jsonschema:"enum=agent_start"`
	RunEnvelope
	// SessionID is the session the run works in.
	SessionID string `json:"sessionId"`
}

// AgentEndEvent ends a run.
type AgentEndEvent struct {
	Type string `json:"type" jsonschema:"enum=agent_end"`
	// Messages are the messages the run produced.
	Messages []Message `json:"messages"`
	// WillRetry is true when the session will retry or compact and continue, so another run
	// follows in the same busy period.
	WillRetry bool `json:"willRetry"`
	RunEnvelope
}

// TurnStartEvent starts a turn: one model response and its tool batch.
type TurnStartEvent struct {
	Type string `json:"type" jsonschema:"enum=turn_start"`
	RunEnvelope
}

// TurnEndEvent ends a turn.
type TurnEndEvent struct {
	Type string `json:"type" jsonschema:"enum=turn_end"`
	// Message is the turn's assistant message.
	Message AssistantMessage `json:"message"`
	// ToolResults are the results of the turn's tool batch, in the order of the calls.
	ToolResults []ToolResultMessage `json:"toolResults"`
	RunEnvelope
}

// MessageStartEvent starts a message: for an assistant message, the start of its stream.
type MessageStartEvent struct {
	Type    string  `json:"type" jsonschema:"enum=message_start"`
	Message Message `json:"message"`
	// InputID is the input (prompt, steer, followUp) that produced this user message.
	InputID string `json:"inputId,omitempty"`
	RunEnvelope
}

// MessageUpdateEvent is one step of a streamed assistant message.
type MessageUpdateEvent struct {
	Type                  string                `json:"type" jsonschema:"enum=message_update"`
	AssistantMessageEvent AssistantMessageEvent `json:"assistantMessageEvent"`
	// Message is the whole partial message, only for clients that declared the
	// partialMessages capability.
	Message *AssistantMessage `json:"message,omitempty"`
	RunEnvelope
}

// MessageEndEvent ends a message; its message is the final, authoritative one.
type MessageEndEvent struct {
	Type    string  `json:"type" jsonschema:"enum=message_end"`
	Message Message `json:"message"`
	// InputID is the input (prompt, steer, followUp) that produced this user message.
	InputID string `json:"inputId,omitempty"`
	RunEnvelope
}

// ToolExecutionStartEvent starts the execution of a tool call.
type ToolExecutionStartEvent struct {
	Type       string `json:"type" jsonschema:"enum=tool_execution_start"`
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	// Args are the call's arguments as the model sent them.
	Args map[string]any `json:"args"`
	RunEnvelope
}

// ToolExecutionUpdateEvent reports a running tool's progress; each update replaces the last.
type ToolExecutionUpdateEvent struct {
	Type       string         `json:"type" jsonschema:"enum=tool_execution_update"`
	ToolCallID string         `json:"toolCallId"`
	ToolName   string         `json:"toolName"`
	Args       map[string]any `json:"args"`
	// PartialResult is the result so far.
	PartialResult ToolResult `json:"partialResult"`
	RunEnvelope
}

// ToolExecutionEndEvent ends the execution of a tool call.
type ToolExecutionEndEvent struct {
	Type       string     `json:"type" jsonschema:"enum=tool_execution_end"`
	ToolCallID string     `json:"toolCallId"`
	ToolName   string     `json:"toolName"`
	Result     ToolResult `json:"result"`
	// IsError says the tool failed; the result's text says why.
	IsError bool `json:"isError"`
	RunEnvelope
}

// AgentSettledEvent ends a busy period: the agent is idle and nothing (retry, compaction,
// queued input) will start more work on its own. It is the last event of its busy period.
type AgentSettledEvent struct {
	Type string `json:"type" jsonschema:"enum=agent_settled"`
	sessionapi.Settled
	Envelope
	// SessionID is the session the busy period worked in.
	SessionID string `json:"sessionId"`
}

// QueueUpdateEvent shows the steering and follow-up queues after a change.
type QueueUpdateEvent struct {
	Type string `json:"type" jsonschema:"enum=queue_update"`
	sessionapi.QueueUpdate
	Envelope
}

// AutoRetryStartEvent announces a retry of a failed model call after a delay.
type AutoRetryStartEvent struct {
	Type string `json:"type" jsonschema:"enum=auto_retry_start"`
	sessionapi.AutoRetryStart
	Envelope
}

// SummarizationRetryScheduledEvent announces a retry of a failed summary request.
type SummarizationRetryScheduledEvent struct {
	Type string `json:"type" jsonschema:"enum=summarization_retry_scheduled"`
	sessionapi.SummarizationRetryScheduled
	Envelope
}

// SummarizationRetryAttemptStartEvent starts the retried summary request.
type SummarizationRetryAttemptStartEvent struct {
	Type string `json:"type" jsonschema:"enum=summarization_retry_attempt_start"`
	sessionapi.SummarizationRetryAttemptStart
	Envelope
}

// SummarizationRetryFinishedEvent ends the retries of a summary request.
type SummarizationRetryFinishedEvent struct {
	Type string `json:"type" jsonschema:"enum=summarization_retry_finished"`
	Envelope
}

// AutoRetryEndEvent ends a series of retries.
type AutoRetryEndEvent struct {
	Type string `json:"type" jsonschema:"enum=auto_retry_end"`
	sessionapi.AutoRetryEnd
	Envelope
}

// CompactionStartEvent starts a compaction of the context.
type CompactionStartEvent struct {
	Type string `json:"type" jsonschema:"enum=compaction_start"`
	sessionapi.CompactionStart
	Envelope
}

// CompactionEndEvent ends a compaction.
type CompactionEndEvent struct {
	Type string `json:"type" jsonschema:"enum=compaction_end"`
	sessionapi.CompactionEnd
	Envelope
}

// PermissionRequestedEvent says the server asked the client for permission to run a tool
// call (a permission/request follows), or that the approval policy is deciding one (a
// permission_resolved with by "policy" follows at once).
type PermissionRequestedEvent struct {
	Type string `json:"type" jsonschema:"enum=permission_requested"`
	sessionapi.PermissionRequested
	Envelope
}

// PermissionResolvedEvent says how a permission request was decided: decision is allow, deny
// or allowAlways; by is client (its answer), policy (the approval mode or an allowAlways
// grant), abort (the run was aborted while waiting) or disconnect (the client went away).
type PermissionResolvedEvent struct {
	Type string `json:"type" jsonschema:"enum=permission_resolved"`
	sessionapi.PermissionResolved
	Envelope
}

// SessionChangedEvent says the server switched to another session.
type SessionChangedEvent struct {
	Type              string `json:"type" jsonschema:"enum=session_changed"`
	PreviousSessionID string `json:"previousSessionId"`
	SessionFile       string `json:"sessionFile,omitempty"`
	// Reason is the method that switched: newSession, openSession, forkSession or
	// navigateTree.
	Reason string `json:"reason" jsonschema:"enum=new,enum=open,enum=fork,enum=navigate"`
	Envelope
	// SessionID is the new session.
	SessionID string `json:"sessionId"`
}

// SessionErrorEvent reports a session failure that is not a method's error, such as a
// failed write to the session file.
type SessionErrorEvent struct {
	Type string `json:"type" jsonschema:"enum=session_error"`
	sessionapi.SessionError
	Envelope
}

// ModelChangedEvent says the model changed.
type ModelChangedEvent struct {
	Type string `json:"type" jsonschema:"enum=model_changed"`
	sessionapi.ModelChanged
	Envelope
}

// ThinkingLevelChangedEvent says the thinking level changed.
type ThinkingLevelChangedEvent struct {
	Type string `json:"type" jsonschema:"enum=thinking_level_changed"`
	sessionapi.ThinkingLevelChanged
	Envelope
}

// BashUpdateEvent carries the output so far of a command run with the bash method: each
// update replaces the previous one (the tail within 2,000 lines / 50 KB).
type BashUpdateEvent struct {
	Type string `json:"type" jsonschema:"enum=bash_update"`
	sessionapi.BashUpdate
	Envelope
}

// PlanUpdateEvent carries the agent's plan after each update_plan call (a tool selected with
// --tools, docs/tools.md): the complete list of steps with their priority and status, which
// replaces the previous plan. It follows the call's tool_execution_end.
type PlanUpdateEvent struct {
	Type string `json:"type" jsonschema:"enum=plan_update"`
	sessionapi.PlanUpdate
	Envelope
}

// MCPServerStatusEvent reports an MCP server's start as it happens: state connecting when
// its start begins (at startup for the configured servers, on initialize or createSession for
// theirs), then connected with its tools or failed with the error (a start bounded by
// --mcp-timeout); failed again if a connected server's connection ends. A prompt sent while a
// server is connecting waits for it. On a connection with several sessions, the event of a
// server of createSession's mcpServers carries that session's sessionId; one of the process's
// servers has none.
type MCPServerStatusEvent struct {
	Type string `json:"type" jsonschema:"enum=mcp_server_status"`
	MCPServerStatusUpdate
	Envelope
}

// MCPServerStatusUpdate is the payload of mcp_server_status: the server's status, as
// listTools reports it, and the number of its tools.
type MCPServerStatusUpdate struct {
	MCPServerStatus
	// ToolCount is the number of the server's tools the agent is offered (0 unless
	// connected).
	ToolCount int `json:"toolCount"`
}

// Event is any event, told apart by type.
type Event struct{}

// JSONSchema implements the schema reflector's custom schema hook: a one-of union.
func (Event) JSONSchema() *jsonschema.Schema {
	defs := make([]string, len(eventDefs))
	for i, d := range eventDefs {
		defs[i] = d.def
	}
	return union(defs...)
}

// EventTypes lists every event type, core's and the session's, in the order of docs/events.md.
var EventTypes = func() []string {
	names := make([]string, len(eventDefs))
	for i, d := range eventDefs {
		names[i] = d.name
	}
	return names
}()

// EventDocTypes maps every event type to a zero value of the type that documents it.
var EventDocTypes = func() map[string]any {
	m := make(map[string]any, len(eventDefs))
	for _, d := range eventDefs {
		m[d.name] = d.doc
	}
	return m
}()

type eventDef struct {
	name string
	def  string
	doc  any
}

var eventDefs = []eventDef{
	{string(core.AgentStart), "AgentStartEvent", AgentStartEvent{}},
	{string(core.AgentEnd), "AgentEndEvent", AgentEndEvent{}},
	{string(core.TurnStart), "TurnStartEvent", TurnStartEvent{}},
	{string(core.TurnEnd), "TurnEndEvent", TurnEndEvent{}},
	{string(core.MessageStart), "MessageStartEvent", MessageStartEvent{}},
	{string(core.MessageUpdate), "MessageUpdateEvent", MessageUpdateEvent{}},
	{string(core.MessageEnd), "MessageEndEvent", MessageEndEvent{}},
	{string(core.ToolExecutionStart), "ToolExecutionStartEvent", ToolExecutionStartEvent{}},
	{string(core.ToolExecutionUpdate), "ToolExecutionUpdateEvent", ToolExecutionUpdateEvent{}},
	{string(core.ToolExecutionEnd), "ToolExecutionEndEvent", ToolExecutionEndEvent{}},
	{sessionapi.EventAgentSettled, "AgentSettledEvent", AgentSettledEvent{}},
	{sessionapi.EventQueueUpdate, "QueueUpdateEvent", QueueUpdateEvent{}},
	{sessionapi.EventAutoRetryStart, "AutoRetryStartEvent", AutoRetryStartEvent{}},
	{sessionapi.EventAutoRetryEnd, "AutoRetryEndEvent", AutoRetryEndEvent{}},
	{sessionapi.EventCompactionStart, "CompactionStartEvent", CompactionStartEvent{}},
	{sessionapi.EventSummarizationRetryScheduled, "SummarizationRetryScheduledEvent", SummarizationRetryScheduledEvent{}},
	{sessionapi.EventSummarizationRetryAttemptStart, "SummarizationRetryAttemptStartEvent", SummarizationRetryAttemptStartEvent{}},
	{sessionapi.EventSummarizationRetryFinished, "SummarizationRetryFinishedEvent", SummarizationRetryFinishedEvent{}},
	{sessionapi.EventCompactionEnd, "CompactionEndEvent", CompactionEndEvent{}},
	{sessionapi.EventPermissionRequested, "PermissionRequestedEvent", PermissionRequestedEvent{}},
	{sessionapi.EventPermissionResolved, "PermissionResolvedEvent", PermissionResolvedEvent{}},
	{sessionapi.EventSessionChanged, "SessionChangedEvent", SessionChangedEvent{}},
	{sessionapi.EventSessionError, "SessionErrorEvent", SessionErrorEvent{}},
	{sessionapi.EventModelChanged, "ModelChangedEvent", ModelChangedEvent{}},
	{sessionapi.EventThinkingLevelChanged, "ThinkingLevelChangedEvent", ThinkingLevelChangedEvent{}},
	{sessionapi.EventBashUpdate, "BashUpdateEvent", BashUpdateEvent{}},
	{sessionapi.EventPlanUpdate, "PlanUpdateEvent", PlanUpdateEvent{}},
	{sessionapi.EventMCPServerStatus, "MCPServerStatusEvent", MCPServerStatusEvent{}},
}

// PermissionRequestParams are the params of permission/request, the server's request for
// permission to run a tool call.
type PermissionRequestParams struct {
	// RequestID identifies the request in permission_requested and permission_resolved.
	RequestID string `json:"requestId"`
	// SessionID names the session asking, once the connection has several.
	SessionID  string `json:"sessionId,omitempty"`
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	// Args are the call's validated arguments.
	Args map[string]any `json:"args"`
}

// PermissionRequestResult is the client's answer to permission/request. An error response or
// an unknown decision counts as deny, with its text as the reason.
type PermissionRequestResult struct {
	// Decision allows this call, denies it, or allows this tool until the session changes.
	Decision string `json:"decision" jsonschema:"enum=allow,enum=deny,enum=allowAlways"`
	// Reason is shown to the model when the call is denied.
	Reason string `json:"reason,omitempty"`
}
