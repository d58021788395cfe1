package sessionapi

import (
	"context"

	"github.com/pi-rpc/pi-rpc/core"
)

// Session event types in addition to core's.
const (
	EventAgentSettled         = "agent_settled"
	EventQueueUpdate          = "queue_update"
	EventAutoRetryStart       = "auto_retry_start"
	EventAutoRetryEnd         = "auto_retry_end"
	EventCompactionStart      = "compaction_start"
	EventCompactionEnd        = "compaction_end"
	EventPermissionRequested  = "permission_requested"
	EventPermissionResolved   = "permission_resolved"
	EventSessionChanged       = "session_changed"
	EventSessionError         = "session_error"
	EventModelChanged         = "model_changed"
	EventThinkingLevelChanged = "thinking_level_changed"
	EventBashUpdate           = "bash_update"
	EventPlanUpdate           = "plan_update"
	// EventEntryAppended announces a session entry the session appended on its own (pi
	// 1.6.0's entry_appended: the context_edit that hides a retried failure), with the entry
	// as its payload. Only sessions that record pi 1.6.0's entries emit it (pi mode).
	EventEntryAppended = "entry_appended"
	// A failed summary request (compaction) retried: scheduled with its delay, the attempt's
	// start, and finished once the retried request ends (pi 1.6.0's summarization_retry_*).
	EventSummarizationRetryScheduled    = "summarization_retry_scheduled"
	EventSummarizationRetryAttemptStart = "summarization_retry_attempt_start"
	EventSummarizationRetryFinished     = "summarization_retry_finished"
	// EventMCPServerStatus reports an MCP server's start; the process's MCP host has the
	// session emit it (Supervisor.ReportMCPStatus; the session knows no MCP), with
	// protocol.MCPServerStatusUpdate as its payload.
	EventMCPServerStatus = "mcp_server_status"
)

// Event is one event of the engine, as a typed value: a core event (Core) or a session event
// (Type and Payload, one of this package's payload types), with where it belongs (RunID,
// SessionID). The session emits it to its [Sink] under its lock, in order; the sink gives it
// its Seq, one gap-free counter per connection, and encodes it for its wire then and there:
// Core's message_update points at the live partial message, valid only during the call.
type Event struct {
	Seq       int64
	Type      string
	RunID     string
	SessionID string
	// Core is the agent event, for core event types.
	Core *core.Event
	// Payload is a session event's payload (*Settled, QueueUpdate, ...).
	Payload any
}

// Sink receives the event stream of one or more sessions. Emit is called in order, under the
// emitting session's lock, and must not block: it assigns the event's seq and returns it.
// LastSeq is the seq of the last event emitted. Wait is called by a run goroutine outside the
// lock after each event and blocks while the client is behind, which is how backpressure
// reaches the provider.
type Sink interface {
	Emit(ev *Event) int64
	LastSeq() int64
	Wait(ctx context.Context)
}

// Outcome is how an input ended.
type Outcome string

// InputOutcome pairs an input with its outcome.
type InputOutcome struct {
	InputID string  `json:"inputId"`
	Outcome Outcome `json:"outcome"`
}

// SettleErrorKind classifies why a busy period failed.
type SettleErrorKind string

// SettleError is agent_settled.error.
type SettleError struct {
	Kind    SettleErrorKind `json:"kind"`
	Message string          `json:"message"`
}

// Settled is the payload of agent_settled: the inputs the period settles, whether it was
// aborted, why it failed, and the event's own seq.
type Settled struct {
	Inputs  []InputOutcome `json:"inputs"`
	Aborted bool           `json:"aborted"`
	Error   *SettleError   `json:"error,omitempty"`
	LastSeq int64          `json:"lastSeq"`
}

// QueuedInput is an input waiting in a queue, as queue_update and getState show it.
type QueuedInput struct {
	InputID string `json:"inputId"`
	Text    string `json:"text"`
}

// QueueUpdate is the payload of queue_update.
type QueueUpdate struct {
	Steering []QueuedInput `json:"steering"`
	FollowUp []QueuedInput `json:"followUp"`
}

// AutoRetryStart is the payload of auto_retry_start.
type AutoRetryStart struct {
	Attempt      int    `json:"attempt"`
	MaxAttempts  int    `json:"maxAttempts"`
	DelayMs      int64  `json:"delayMs"`
	ErrorMessage string `json:"errorMessage"`
}

// SummarizationRetryScheduled is the payload of summarization_retry_scheduled.
type SummarizationRetryScheduled struct {
	Attempt      int    `json:"attempt"`
	MaxAttempts  int    `json:"maxAttempts"`
	DelayMs      int64  `json:"delayMs"`
	ErrorMessage string `json:"errorMessage"`
}

// SummarizationRetryAttemptStart is the payload of summarization_retry_attempt_start: what
// the summary is for (source "compaction", with the compaction's reason).
type SummarizationRetryAttemptStart struct {
	Source string           `json:"source" jsonschema:"enum=compaction,enum=branchSummary"`
	Reason CompactionReason `json:"reason,omitempty"`
}

// SummarizationRetryFinished is the payload of summarization_retry_finished (none).
type SummarizationRetryFinished struct{}

// AutoRetryEnd is the payload of auto_retry_end.
type AutoRetryEnd struct {
	Success    bool   `json:"success"`
	Attempt    int    `json:"attempt"`
	FinalError string `json:"finalError,omitempty"`
}

// CompactionReason says what started a compaction.
type CompactionReason string

// CompactionStart is the payload of compaction_start.
type CompactionStart struct {
	Reason CompactionReason `json:"reason"`
}

// CompactionEnd is the payload of compaction_end. Result is absent when nothing was
// compacted.
type CompactionEnd struct {
	Reason       CompactionReason  `json:"reason"`
	Result       *CompactionResult `json:"result,omitempty"`
	Aborted      bool              `json:"aborted"`
	WillRetry    bool              `json:"willRetry"`
	ErrorMessage string            `json:"errorMessage,omitempty"`
}

// SessionError is the payload of session_error.
type SessionError struct {
	Message string `json:"message"`
}

// ModelChanged is the payload of model_changed.
type ModelChanged struct {
	Model core.Model `json:"model"`
}

// BashUpdate is the payload of bash_update: the output of a running command so far (its
// tail within the limits), which replaces the previous update.
type BashUpdate struct {
	BashID string `json:"bashId"`
	Output string `json:"output"`
}

// PlanEntry is one step of the agent's plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority" jsonschema:"enum=high,enum=medium,enum=low"`
	Status   string `json:"status" jsonschema:"enum=pending,enum=in_progress,enum=completed"`
}

// PlanUpdate is the payload of plan_update: the complete plan an update_plan call set,
// which replaces the previous one.
type PlanUpdate struct {
	// ToolCallID is the update_plan call that set the plan.
	ToolCallID string      `json:"toolCallId"`
	Entries    []PlanEntry `json:"entries"`
}

// ThinkingLevelChanged is the payload of thinking_level_changed.
type ThinkingLevelChanged struct {
	Level core.ThinkingLevel `json:"level"`
}

// CompactionResult is a finished compaction, ready to become a compaction entry.
type CompactionResult struct {
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"firstKeptEntryId"`
	TokensBefore     int    `json:"tokensBefore"`
	// EstimatedTokensAfter estimates the rebuilt context's tokens right after compaction
	// (a heuristic, not the provider's count).
	EstimatedTokensAfter int `json:"estimatedTokensAfter,omitempty"`
	// Usage is what the summary requests used, added up.
	Usage   *core.Usage        `json:"usage,omitempty"`
	Details *CompactionDetails `json:"details,omitempty"`
}

// CompactionDetails lists the files a compacted conversation read and modified.
type CompactionDetails struct {
	ReadFiles     []string `json:"readFiles"`
	ModifiedFiles []string `json:"modifiedFiles"`
}

// PermissionRequested is the payload of permission_requested.
type PermissionRequested struct {
	RequestID  string `json:"requestId"`
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
}

// PermissionResolved is the payload of permission_resolved.
type PermissionResolved struct {
	RequestID  string `json:"requestId"`
	ToolCallID string `json:"toolCallId"`
	Decision   string `json:"decision" jsonschema:"enum=allow,enum=deny,enum=allowAlways"`
	By         string `json:"by" jsonschema:"enum=client,enum=policy,enum=abort,enum=disconnect"`
	Reason     string `json:"reason,omitempty"`
}
