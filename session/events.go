package session

import (
	"encoding/json"
	"strconv"

	"github.com/pi-rpc/pi-rpc/core"
)

// Session event types (DESIGN.md §4), in addition to core's.
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
)

// Event is one event as it goes to the client: its type, its place in the stream and its
// wire form. Data is the whole JSON object of the event notification's params, envelope
// fields (seq, runId, sessionId) included, serialised when the event happened so that
// nothing it points at can change before it is written.
type Event struct {
	Seq  int64
	Type string
	Data []byte
}

// Outcome is how an input ended.
type Outcome string

// The input outcomes of DESIGN.md §2.1.
const (
	OutcomeCompleted Outcome = "completed"
	OutcomeAborted   Outcome = "aborted"
	OutcomeFailed    Outcome = "failed"
	OutcomeCancelled Outcome = "cancelled"
)

// InputOutcome pairs an input with its outcome.
type InputOutcome struct {
	InputID string  `json:"inputId"`
	Outcome Outcome `json:"outcome"`
}

// SettleErrorKind classifies why a busy period failed.
type SettleErrorKind string

// The failure kinds of agent_settled.error.
const (
	SettleErrorProvider    SettleErrorKind = "provider"
	SettleErrorOverflow    SettleErrorKind = "overflow"
	SettleErrorAuth        SettleErrorKind = "auth"
	SettleErrorPersistence SettleErrorKind = "persistence"
)

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

// AutoRetryEnd is the payload of auto_retry_end.
type AutoRetryEnd struct {
	Success    bool   `json:"success"`
	Attempt    int    `json:"attempt"`
	FinalError string `json:"finalError,omitempty"`
}

// CompactionReason says what started a compaction.
type CompactionReason string

// The compaction reasons.
const (
	CompactionManual    CompactionReason = "manual"
	CompactionThreshold CompactionReason = "threshold"
	CompactionOverflow  CompactionReason = "overflow"
)

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

// ThinkingLevelChanged is the payload of thinking_level_changed.
type ThinkingLevelChanged struct {
	Level core.ThinkingLevel `json:"level"`
}

// envelope is what the supervisor adds to an event: its seq, the run it belongs to, and the
// session id on the events that carry it.
type envelope struct {
	seq       int64
	runID     string
	sessionID string
}

func (env envelope) append(dst []byte) []byte {
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendInt(dst, env.seq, 10)
	if env.runID != "" {
		dst = append(dst, `,"runId":`...)
		dst = core.AppendJSONString(dst, env.runID)
	}
	if env.sessionID != "" {
		dst = append(dst, `,"sessionId":`...)
		dst = core.AppendJSONString(dst, env.sessionID)
	}
	return append(dst, '}')
}

// encodeCore serialises a core event with its envelope.
func encodeCore(ev *core.Event, env envelope, partial bool) ([]byte, error) {
	dst := make([]byte, 0, 96)
	dst = append(dst, '{')
	dst, err := ev.AppendFields(dst, partial)
	if err != nil {
		return nil, err
	}
	return env.append(dst), nil
}

// encodeSession serialises a session event: its type, the payload's fields, the envelope.
func encodeSession(typ string, payload any, env envelope) ([]byte, error) {
	dst := make([]byte, 0, 128)
	dst = append(dst, `{"type":`...)
	dst = core.AppendJSONString(dst, typ)
	if payload != nil {
		body, err := json.Marshal(payload)
		if err != nil {
			return nil, err
		}
		if len(body) > 2 {
			dst = append(dst, ',')
			dst = append(dst, body[1:len(body)-1]...)
		}
	}
	return env.append(dst), nil
}

func jsonMarshal(v any) (json.RawMessage, error) { return json.Marshal(v) }
