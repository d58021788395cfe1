package core

import (
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/internal/jsonstring"
)

// Role names the kind of a [Message].
type Role string

// The message roles: the three LLM roles and the coding agent's custom roles (pi's
// packages/coding-agent/src/core/messages.ts).
const (
	RoleUser              Role = "user"
	RoleAssistant         Role = "assistant"
	RoleToolResult        Role = "toolResult"
	RoleBashExecution     Role = "bashExecution"
	RoleCustom            Role = "custom"
	RoleBranchSummary     Role = "branchSummary"
	RoleCompactionSummary Role = "compactionSummary"
	RoleSystem            Role = "system"
)

// StopReason says why an assistant message ended.
type StopReason string

// The stop reasons of pi's data model.
const (
	StopReasonStop    StopReason = "stop"
	StopReasonLength  StopReason = "length"
	StopReasonToolUse StopReason = "toolUse"
	StopReasonError   StopReason = "error"
	StopReasonAborted StopReason = "aborted"
)

// Message is one entry of the agent's transcript: *[UserMessage], *[AssistantMessage],
// *[ToolResultMessage], *[BashExecutionMessage], *[CustomMessage], *[BranchSummaryMessage],
// *[CompactionSummaryMessage] or *[SystemMessage]. Its JSON form is pi's, with the role first
// (message_marshal.go); message_decode.go reads it back.
type Message interface {
	// Role reports the message's role.
	Role() Role
	// Time reports the message's timestamp in Unix milliseconds.
	Time() int64
}

// Cost is a usage's price in dollars.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
	// TotalFromProvider is pi 1.6.0's: whether the provider reported the total; kept as read.
	TotalFromProvider *bool `json:"totalFromProvider,omitempty"`
}

// Usage counts the tokens of one assistant response. Input excludes cached tokens;
// TotalTokens is the sum of the four counts.
type Usage struct {
	Input       int  `json:"input"`
	Output      int  `json:"output"`
	CacheRead   int  `json:"cacheRead"`
	CacheWrite  int  `json:"cacheWrite"`
	TotalTokens int  `json:"totalTokens"`
	Cost        Cost `json:"cost"`
	// Reasoning is pi 1.6.0's count of reasoning tokens (already in Output), kept as read.
	Reasoning *int `json:"reasoning,omitempty"`
}

// Add adds o's tokens and costs to u (usage summed over several requests).
func (u *Usage) Add(o Usage) {
	u.Input += o.Input
	u.Output += o.Output
	u.CacheRead += o.CacheRead
	u.CacheWrite += o.CacheWrite
	u.TotalTokens += o.TotalTokens
	u.Cost.Input += o.Cost.Input
	u.Cost.Output += o.Cost.Output
	u.Cost.CacheRead += o.Cost.CacheRead
	u.Cost.CacheWrite += o.Cost.CacheWrite
	u.Cost.Total += o.Cost.Total
}

// UserMessage is a message from the user (or injected on the user's behalf).
type UserMessage struct {
	Content   []Content `json:"content"`
	Timestamp int64     `json:"timestamp"`
}

// AssistantMessage is one model response. While it streams, the agent holds it as a live
// partial message that the provider appends to.
type AssistantMessage struct {
	Content       []Content       `json:"content"`
	API           string          `json:"api"`
	Provider      string          `json:"provider"`
	Model         string          `json:"model"`
	ResponseModel string          `json:"responseModel,omitempty"`
	ResponseID    string          `json:"responseId,omitempty"`
	Diagnostics   json.RawMessage `json:"diagnostics,omitempty"`
	Usage         Usage           `json:"usage"`
	StopReason    StopReason      `json:"stopReason"`
	ErrorMessage  string          `json:"errorMessage,omitempty"`
	Timestamp     int64           `json:"timestamp"`
	// DurationMs is how long the model call took, from the request to the final event;
	// ThinkingLevel is the level that was requested for it (pi 1.6.0 records both).
	DurationMs    *int64        `json:"durationMs,omitempty"`
	ThinkingLevel ThinkingLevel `json:"thinkingLevel,omitempty"`
	// RawStopReason is the provider's own stop reason, as pi 1.6.0 records it (kept as read).
	RawStopReason string `json:"rawStopReason,omitempty"`

	// Failure classifies an error or aborted response for the session's retry and compaction
	// decisions. It is not part of the wire or file format: messages read back from a file
	// have none, and the session falls back to matching ErrorMessage.
	Failure *ProviderError `json:"-"`
}

// ToolCalls returns the tool-call blocks of the message, in content order.
func (m *AssistantMessage) ToolCalls() []*Content {
	var calls []*Content
	for i := range m.Content {
		if m.Content[i].Type == ContentToolCall {
			calls = append(calls, &m.Content[i])
		}
	}
	return calls
}

// ToolResultMessage carries the result of one tool call back to the model.
type ToolResultMessage struct {
	ToolCallID string    `json:"toolCallId"`
	ToolName   string    `json:"toolName"`
	Content    []Content `json:"content"`
	Details    any       `json:"details,omitempty"`
	IsError    bool      `json:"isError"`
	// DurationMs is how long the tool ran; absent when it did not run (pi 1.6.0).
	DurationMs *int64 `json:"durationMs,omitempty"`
	Timestamp  int64  `json:"timestamp"`
}

// BashExecutionMessage records a shell command the user ran directly (pi's bashExecution role).
type BashExecutionMessage struct {
	Command            string `json:"command"`
	Output             string `json:"output"`
	ExitCode           *int   `json:"exitCode,omitempty"`
	Cancelled          bool   `json:"cancelled"`
	Truncated          bool   `json:"truncated"`
	FullOutputPath     string `json:"fullOutputPath,omitempty"`
	Timestamp          int64  `json:"timestamp"`
	ExcludeFromContext bool   `json:"excludeFromContext,omitempty"`
}

// CustomMessage is an application-defined message; it reaches the model as a user message.
type CustomMessage struct {
	CustomType string    `json:"customType"`
	Content    []Content `json:"content"`
	Display    bool      `json:"display"`
	Details    any       `json:"details,omitempty"`
	Timestamp  int64     `json:"timestamp"`
}

// BranchSummaryMessage summarises a branch of the session tree that was left.
type BranchSummaryMessage struct {
	Summary   string `json:"summary"`
	FromID    string `json:"fromId"`
	Timestamp int64  `json:"timestamp"`
}

// CompactionSummaryMessage stands for the compacted part of the conversation.
type CompactionSummaryMessage struct {
	Summary      string `json:"summary"`
	TokensBefore int    `json:"tokensBefore"`
	Timestamp    int64  `json:"timestamp"`
}

// SystemMessage declares the system prompt and the tools the model may call (pi 1.6.0's
// SystemMessage): the first request of a session records one with every prompt section and
// tool, later ones patch sections by name (null removes one) and list tools added or removed.
// It is transcript metadata: the model's request carries the prompt and tools on their own,
// so ConvertToLLM drops it. Sections, ToolsAdded and ToolsRemoved are kept as written (pi's
// JSON), so a file's system messages round-trip unchanged.
type SystemMessage struct {
	// Content is appended instruction text (pi writes "" when the sections say everything).
	Content      string          `json:"content"`
	Sections     json.RawMessage `json:"sections,omitempty"`
	ToolsAdded   json.RawMessage `json:"toolsAdded,omitempty"`
	ToolsRemoved json.RawMessage `json:"toolsRemoved,omitempty"`
	Timestamp    int64           `json:"timestamp"`
}

// SystemSection is one named section of a system prompt.
type SystemSection struct {
	Name string
	Text string
}

// NewSystemMessage builds the system message that declares sections and tools from nothing
// (the leading one of a session, or a compaction's checkpoint).
func NewSystemMessage(sections []SystemSection, tools []ToolSpec, timestamp int64) *SystemMessage {
	m := &SystemMessage{Timestamp: timestamp}
	if len(sections) > 0 {
		b := []byte{'{'}
		for i, sec := range sections {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonstring.Append(b, sec.Name)
			b = append(b, ':')
			b = jsonstring.Append(b, sec.Text)
		}
		m.Sections = append(b, '}')
	}
	if len(tools) > 0 {
		type decl struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Parameters  any    `json:"parameters"`
		}
		ds := make([]decl, len(tools))
		for i, t := range tools {
			ds[i] = decl{t.Name, t.Description, t.Parameters}
		}
		m.ToolsAdded, _ = json.Marshal(ds)
	}
	return m
}

// Role implements [Message].
func (*SystemMessage) Role() Role { return RoleSystem }

// Time implements [Message].
func (m *SystemMessage) Time() int64 { return m.Timestamp }

// Role implements [Message].
func (*UserMessage) Role() Role { return RoleUser }

// Role implements [Message].
func (*AssistantMessage) Role() Role { return RoleAssistant }

// Role implements [Message].
func (*ToolResultMessage) Role() Role { return RoleToolResult }

// Role implements [Message].
func (*BashExecutionMessage) Role() Role { return RoleBashExecution }

// Role implements [Message].
func (*CustomMessage) Role() Role { return RoleCustom }

// Role implements [Message].
func (*BranchSummaryMessage) Role() Role { return RoleBranchSummary }

// Role implements [Message].
func (*CompactionSummaryMessage) Role() Role { return RoleCompactionSummary }

// Time implements [Message].
func (m *UserMessage) Time() int64 { return m.Timestamp }

// Time implements [Message].
func (m *AssistantMessage) Time() int64 { return m.Timestamp }

// Time implements [Message].
func (m *ToolResultMessage) Time() int64 { return m.Timestamp }

// Time implements [Message].
func (m *BashExecutionMessage) Time() int64 { return m.Timestamp }

// Time implements [Message].
func (m *CustomMessage) Time() int64 { return m.Timestamp }

// Time implements [Message].
func (m *BranchSummaryMessage) Time() int64 { return m.Timestamp }

// Time implements [Message].
func (m *CompactionSummaryMessage) Time() int64 { return m.Timestamp }

// NewUserMessage returns a user message with one text block followed by images, the form pi
// gives messages created from prompt, steer and follow-up text.
func NewUserMessage(text string, images []Content, timestamp int64) *UserMessage {
	content := make([]Content, 0, 1+len(images))
	content = append(content, TextBlock(text))
	content = append(content, images...)
	return &UserMessage{Content: content, Timestamp: timestamp}
}
