package sessionapi

import (
	"github.com/pi-rpc/pi-rpc/core"
)

// SwitchReason is why the session changed (session_changed.reason).
type SwitchReason string

// SessionChanged is the payload of session_changed; the envelope adds the new sessionId.
type SessionChanged struct {
	PreviousSessionID string       `json:"previousSessionId"`
	SessionFile       string       `json:"sessionFile,omitempty"`
	Reason            SwitchReason `json:"reason"`
}

// SessionRef names the session a switch landed on (newSession's and openSession's result).
type SessionRef struct {
	SessionID   string `json:"sessionId"`
	SessionFile string `json:"sessionFile,omitempty"`
	// Warnings are what was skipped or repaired when the file was read.
	Warnings []string `json:"warnings,omitempty"`
}

// ForkResult is forkSession's result: the new session and the text of the user message it
// was forked before, for the client's editor.
type ForkResult struct {
	SessionID   string `json:"sessionId"`
	SessionFile string `json:"sessionFile,omitempty"`
	Text        string `json:"text"`
}

// SessionInfo describes a session file for listSessions (pi's SessionInfo).
type SessionInfo struct {
	ID   string `json:"id"`
	File string `json:"file"`
	Name string `json:"name,omitempty"`
	// FirstMessage is the text of the first user message, "(no messages)" if none.
	FirstMessage string `json:"firstMessage"`
	// MessageCount counts the message entries of every branch.
	MessageCount int `json:"messageCount"`
	// Modified is the time of the last user or assistant message (the header's time for a
	// session without one), ISO-8601.
	Modified string `json:"modified"`
	Cwd      string `json:"cwd"`
}

// TreeNode is one entry of getTree, flat: a client builds the tree from parentId.
type TreeNode struct {
	ID string `json:"id"`
	// ParentID is null for a root.
	ParentID *string   `json:"parentId"`
	Type     EntryType `json:"type"`
	// Role is a message entry's message role.
	Role core.Role `json:"role,omitempty"`
	// Preview is a one-line description: a message's text (cut at 120 characters), or what
	// the entry records.
	Preview string `json:"preview"`
	// Label is the entry's current label, if any.
	Label     string `json:"label,omitempty"`
	Timestamp string `json:"timestamp"`
}

// TreeView is getTree's result: every entry of the session in file order, and the leaf.
type TreeView struct {
	// LeafID is the current leaf, null before the first entry (or after navigating to the
	// first user message).
	LeafID *string    `json:"leafId"`
	Nodes  []TreeNode `json:"nodes"`
}

// Stats is getSessionStats' result (as pi 1.6.0 computes it): counts and token sums over every
// entry of the session file (usage entries and summaries' usage included), cost, and the
// current context's usage.
type Stats struct {
	SessionID         string        `json:"sessionId"`
	SessionFile       string        `json:"sessionFile,omitempty"`
	UserMessages      int           `json:"userMessages"`
	AssistantMessages int           `json:"assistantMessages"`
	ToolCalls         int           `json:"toolCalls"`
	ToolResults       int           `json:"toolResults"`
	TotalMessages     int           `json:"totalMessages"`
	Tokens            TokenStats    `json:"tokens"`
	Cost              float64       `json:"cost"`
	ContextUsage      *ContextUsage `json:"contextUsage,omitempty"`
}

// TokenStats sums the usage the session was billed.
type TokenStats struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
	Total      int `json:"total"`
}

// ContextUsage is how full the model's context window is. Tokens and Percent are null right
// after a compaction, until a reply reports fresh usage.
type ContextUsage struct {
	Tokens        *int     `json:"tokens"`
	ContextWindow int      `json:"contextWindow"`
	Percent       *float64 `json:"percent"`
}

// NavigateResult is navigateTree's result.
type NavigateResult struct {
	// LeafID is the new leaf, null when the branch is now empty (navigated to the first user
	// message).
	LeafID *string `json:"leafId"`
	// Text is the text of the user (or custom) message navigated to, for the client's editor:
	// the leaf is its parent, so the message can be edited and sent again.
	Text string `json:"text,omitempty"`
	// SummaryEntryID is the branch_summary entry created with summarize.
	SummaryEntryID string `json:"summaryEntryId,omitempty"`
	// Cancelled says the navigation was aborted while the summary was being written; nothing
	// changed.
	Cancelled bool `json:"cancelled,omitempty"`
}

// BashResult is the outcome of a user's command (pi's BashResult).
type BashResult struct {
	Output string `json:"output"`
	// ExitCode is absent when the command was killed.
	ExitCode       *int   `json:"exitCode,omitempty"`
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// Disposition says what happened to an accepted input.
type Disposition string

// Accepted is the answer to an accepted input.
type Accepted struct {
	InputID     string      `json:"inputId"`
	Disposition Disposition `json:"disposition"`
	// AfterSeq is the seq of the last event emitted before the input's first event: an answer
	// placed right after it precedes every event the input causes.
	AfterSeq int64 `json:"-"`
}

// Options are the session options a client can change (setOptions).
type Options struct {
	SteeringMode   core.QueueMode     `json:"steeringMode"`
	FollowUpMode   core.QueueMode     `json:"followUpMode"`
	AutoRetry      bool               `json:"autoRetry"`
	AutoCompaction bool               `json:"autoCompaction"`
	ToolExecution  core.ExecutionMode `json:"toolExecution"`
	Approval       string             `json:"approval" jsonschema:"enum=auto,enum=ask,enum=deny-writes"`
}

// PendingPermission is a permission request waiting for the client.
type PendingPermission struct {
	RequestID  string `json:"requestId"`
	ToolCallID string `json:"toolCallId"`
}

// BusyState is getState.busy.
type BusyState struct {
	Running            bool                `json:"running"`
	Streaming          bool                `json:"streaming"`
	ToolsRunning       []string            `json:"toolsRunning"`
	RetryUntil         int64               `json:"retryUntil,omitempty"`
	Compacting         bool                `json:"compacting"`
	PermissionsPending []PendingPermission `json:"permissionsPending"`
	Steering           []QueuedInput       `json:"steering"`
	FollowUp           []QueuedInput       `json:"followUp"`
}

// EntryType names a session-file entry (docs/sessions.md#the-format).
type EntryType string

// CommandSource says what a slash command expands: a prompt template or an Agent Skill
// (docs/skills.md).
type CommandSource string

// The command sources.
const (
	CommandPrompt CommandSource = "prompt"
	CommandSkill  CommandSource = "skill"
)

// Command is one slash command a session expands (listCommands, pi mode's get_commands,
// ACP's available_commands_update): a prompt template (/name) or a skill (/skill:name).
type Command struct {
	// Name is the command without its slash: a template's file name, or "skill:" and the
	// skill's name.
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Source      CommandSource `json:"source" jsonschema:"enum=prompt,enum=skill"`
	// ArgumentHint is a template's argument-hint ("<required>", "[optional]").
	ArgumentHint string            `json:"argumentHint,omitempty"`
	SourceInfo   CommandSourceInfo `json:"sourceInfo"`
}

// CommandSourceInfo is where a command's file came from, in pi's words.
type CommandSourceInfo struct {
	// Path is the file: the template, or the skill's SKILL.md.
	Path string `json:"path"`
	// Source is how it was found: "auto" (a conventional directory), "local" (a settings
	// entry or a command-line path).
	Source string `json:"source"`
	// Scope is "user", "project" or "temporary" (a command-line path).
	Scope string `json:"scope" jsonschema:"enum=user,enum=project,enum=temporary"`
	// Origin is "top-level" (pi's packages, which pi-rpc does not load, are "package").
	Origin  string `json:"origin"`
	BaseDir string `json:"baseDir,omitempty"`
}
