package session

import "github.com/pi-rpc/pi-rpc/sessionapi"

// The engine's value types live in package sessionapi, so that a client of the protocol
// (clients/go, through protocol) needs none of this package; these aliases keep their
// names here.
type (
	Event           = sessionapi.Event
	Sink            = sessionapi.Sink
	Outcome         = sessionapi.Outcome
	InputOutcome    = sessionapi.InputOutcome
	SettleErrorKind = sessionapi.SettleErrorKind
	SettleError     = sessionapi.SettleError
	Settled         = sessionapi.Settled
	QueuedInput     = sessionapi.QueuedInput
	QueueUpdate     = sessionapi.QueueUpdate
	AutoRetryStart  = sessionapi.AutoRetryStart
	// SummarizationRetryScheduled, SummarizationRetryAttemptStart and
	// SummarizationRetryFinished are the payloads of the summarization_retry_* events.
	SummarizationRetryScheduled    = sessionapi.SummarizationRetryScheduled
	SummarizationRetryAttemptStart = sessionapi.SummarizationRetryAttemptStart
	SummarizationRetryFinished     = sessionapi.SummarizationRetryFinished
	AutoRetryEnd                   = sessionapi.AutoRetryEnd
	CompactionReason               = sessionapi.CompactionReason
	CompactionStart                = sessionapi.CompactionStart
	CompactionEnd                  = sessionapi.CompactionEnd
	SessionError                   = sessionapi.SessionError
	ModelChanged                   = sessionapi.ModelChanged
	BashUpdate                     = sessionapi.BashUpdate
	PlanUpdate                     = sessionapi.PlanUpdate
	PlanEntry                      = sessionapi.PlanEntry
	ThinkingLevelChanged           = sessionapi.ThinkingLevelChanged
	CompactionResult               = sessionapi.CompactionResult
	CompactionDetails              = sessionapi.CompactionDetails
	PermissionRequested            = sessionapi.PermissionRequested
	PermissionResolved             = sessionapi.PermissionResolved
	SwitchReason                   = sessionapi.SwitchReason
	SessionChanged                 = sessionapi.SessionChanged
	SessionRef                     = sessionapi.SessionRef
	ForkResult                     = sessionapi.ForkResult
	SessionInfo                    = sessionapi.SessionInfo
	TreeNode                       = sessionapi.TreeNode
	TreeView                       = sessionapi.TreeView
	Stats                          = sessionapi.Stats
	TokenStats                     = sessionapi.TokenStats
	ContextUsage                   = sessionapi.ContextUsage
	NavigateResult                 = sessionapi.NavigateResult
	BashResult                     = sessionapi.BashResult
	Disposition                    = sessionapi.Disposition
	Accepted                       = sessionapi.Accepted
	Options                        = sessionapi.Options
	PendingPermission              = sessionapi.PendingPermission
	BusyState                      = sessionapi.BusyState
	EntryType                      = sessionapi.EntryType
	Command                        = sessionapi.Command
	CommandSource                  = sessionapi.CommandSource
	CommandSourceInfo              = sessionapi.CommandSourceInfo
)

// The command sources.
const (
	CommandPrompt = sessionapi.CommandPrompt
	CommandSkill  = sessionapi.CommandSkill
)

// Session event types, in addition to core's.
const (
	EventAgentSettled                   = sessionapi.EventAgentSettled
	EventQueueUpdate                    = sessionapi.EventQueueUpdate
	EventAutoRetryStart                 = sessionapi.EventAutoRetryStart
	EventEntryAppended                  = sessionapi.EventEntryAppended
	EventSummarizationRetryScheduled    = sessionapi.EventSummarizationRetryScheduled
	EventSummarizationRetryAttemptStart = sessionapi.EventSummarizationRetryAttemptStart
	EventSummarizationRetryFinished     = sessionapi.EventSummarizationRetryFinished
	EventAutoRetryEnd                   = sessionapi.EventAutoRetryEnd
	EventCompactionStart                = sessionapi.EventCompactionStart
	EventCompactionEnd                  = sessionapi.EventCompactionEnd
	EventPermissionRequested            = sessionapi.EventPermissionRequested
	EventPermissionResolved             = sessionapi.EventPermissionResolved
	EventSessionChanged                 = sessionapi.EventSessionChanged
	EventSessionError                   = sessionapi.EventSessionError
	EventModelChanged                   = sessionapi.EventModelChanged
	EventThinkingLevelChanged           = sessionapi.EventThinkingLevelChanged
	EventBashUpdate                     = sessionapi.EventBashUpdate
	EventPlanUpdate                     = sessionapi.EventPlanUpdate
	EventMCPServerStatus                = sessionapi.EventMCPServerStatus
)
