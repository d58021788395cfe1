package protocol

import (
	"encoding/json"

	"github.com/invopop/jsonschema"

	"github.com/pi-rpc/pi-rpc/core"
)

// The types in this file document the JSON that core writes for its content blocks, messages,
// streamed assistant events and tool results. Core keeps those values in compact Go types
// with custom MarshalJSON methods, so reflecting core's Go fields would describe the wrong
// shapes; schema.json is generated from these types instead, and a test validates core's
// real output against it. The unions (Content, Message, AssistantMessageEvent) describe a
// one-of in the schema and hold the decoded value in Go, so that the event types of events.go
// decode a whole event: a Content holds a core.Content, a Message a core.Message, and each
// re-encodes to the JSON it was decoded from.

// TextContent is a block of text.
type TextContent struct {
	Type string `json:"type" jsonschema:"enum=text"`
	Text string `json:"text"`
	// TextSignature is provider metadata for the block, replayed to the same provider.
	TextSignature string `json:"textSignature,omitempty"`
}

// ThinkingContent is a block of the model's reasoning.
type ThinkingContent struct {
	Type     string `json:"type" jsonschema:"enum=thinking"`
	Thinking string `json:"thinking"`
	// ThinkingSignature is provider metadata; for OpenAI-compatible providers it names the
	// response field the reasoning came from.
	ThinkingSignature string `json:"thinkingSignature,omitempty"`
	// Redacted marks reasoning the provider withheld.
	Redacted bool `json:"redacted,omitempty"`
}

// ImageContent is an image, base64-encoded.
type ImageContent struct {
	Type     string `json:"type" jsonschema:"enum=image"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
}

// ToolCall is a call of a tool by the model; it appears only in assistant messages.
type ToolCall struct {
	Type string `json:"type" jsonschema:"enum=toolCall"`
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the call's arguments object, {} when the model sent none.
	Arguments map[string]any `json:"arguments"`
	// ThoughtSignature is provider metadata replayed to the same provider.
	ThoughtSignature string `json:"thoughtSignature,omitempty"`
}

// Content is any content block: text, thinking, image or tool call, told apart by type.
type Content struct{ core.Content }

// JSONSchema implements the schema reflector's custom schema hook: a one-of union.
func (Content) JSONSchema() *jsonschema.Schema {
	return union("TextContent", "ThinkingContent", "ImageContent", "ToolCall")
}

// UserContent is a block of user, tool-result or custom content: text or an image.
type UserContent struct{ core.Content }

// JSONSchema implements the schema reflector's custom schema hook: a one-of union.
func (UserContent) JSONSchema() *jsonschema.Schema {
	return union("TextContent", "ImageContent")
}

// AssistantContent is a block of an assistant message: text, thinking or a tool call.
type AssistantContent struct{ core.Content }

// JSONSchema implements the schema reflector's custom schema hook: a one-of union.
func (AssistantContent) JSONSchema() *jsonschema.Schema {
	return union("TextContent", "ThinkingContent", "ToolCall")
}

// UserMessage is a message from the user, or injected on the user's behalf. Messages made
// from prompt, steer and followUp hold one text block followed by the images.
type UserMessage struct {
	Role    string        `json:"role" jsonschema:"enum=user"`
	Content []UserContent `json:"content"`
	// Timestamp is in Unix milliseconds, as in every message.
	Timestamp int64 `json:"timestamp"`
}

// AssistantMessage is one model response.
type AssistantMessage struct {
	Role    string             `json:"role" jsonschema:"enum=assistant"`
	Content []AssistantContent `json:"content"`
	// API is the provider API the response came from, such as openai-completions.
	API      string `json:"api"`
	Provider string `json:"provider"`
	// Model is the id of the model asked.
	Model string `json:"model"`
	// ResponseModel is the model that answered, when the provider reports a different one.
	ResponseModel string `json:"responseModel,omitempty"`
	// ResponseID is the provider's id for the response.
	ResponseID string `json:"responseId,omitempty"`
	// Diagnostics are provider diagnostics, passed through unchanged.
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	Usage       core.Usage   `json:"usage"`
	// StopReason is why the response ended: error and aborted responses carry errorMessage.
	StopReason   core.StopReason `json:"stopReason"`
	ErrorMessage string          `json:"errorMessage,omitempty"`
	Timestamp    int64           `json:"timestamp"`
	// DurationMs is how long the model call took, from the request to its last event.
	DurationMs *int64 `json:"durationMs,omitempty"`
	// ThinkingLevel is the thinking level the request asked for.
	ThinkingLevel core.ThinkingLevel `json:"thinkingLevel,omitempty"`
	// RawStopReason is the provider's own stop reason, kept as read from a pi 1.6.0 session.
	RawStopReason string `json:"rawStopReason,omitempty"`
}

// Diagnostic is a provider diagnostic attached to an assistant message.
type Diagnostic struct {
	Type      string           `json:"type"`
	Timestamp int64            `json:"timestamp"`
	Error     *DiagnosticError `json:"error,omitempty"`
	Details   any              `json:"details,omitempty"`
}

// DiagnosticError is the error of a [Diagnostic].
type DiagnosticError struct {
	Name    string `json:"name,omitempty"`
	Message string `json:"message"`
	Stack   string `json:"stack,omitempty"`
	Code    string `json:"code,omitempty"`
}

// ToolResultMessage carries the result of one tool call back to the model.
type ToolResultMessage struct {
	Role       string        `json:"role" jsonschema:"enum=toolResult"`
	ToolCallID string        `json:"toolCallId"`
	ToolName   string        `json:"toolName"`
	Content    []UserContent `json:"content"`
	// Details are the tool's structured details (a diff, a truncation notice), any JSON.
	Details any  `json:"details,omitempty"`
	IsError bool `json:"isError"`
	// DurationMs is how long the tool ran; absent when it did not run.
	DurationMs *int64 `json:"durationMs,omitempty"`
	Timestamp  int64  `json:"timestamp"`
}

// BashExecutionMessage records a shell command run with the bash method; the model sees it
// as a user message unless excludeFromContext is set.
type BashExecutionMessage struct {
	Role    string `json:"role" jsonschema:"enum=bashExecution"`
	Command string `json:"command"`
	Output  string `json:"output"`
	// ExitCode is absent when the command was killed or did not start.
	ExitCode  *int `json:"exitCode,omitempty"`
	Cancelled bool `json:"cancelled"`
	Truncated bool `json:"truncated"`
	// FullOutputPath is a file holding the whole output when it was truncated.
	FullOutputPath     string `json:"fullOutputPath,omitempty"`
	Timestamp          int64  `json:"timestamp"`
	ExcludeFromContext bool   `json:"excludeFromContext,omitempty"`
}

// CustomMessage is an application-defined message; the model sees it as a user message.
type CustomMessage struct {
	Role       string        `json:"role" jsonschema:"enum=custom"`
	CustomType string        `json:"customType"`
	Content    []UserContent `json:"content"`
	// Display says whether a user interface shows the message.
	Display   bool  `json:"display"`
	Details   any   `json:"details,omitempty"`
	Timestamp int64 `json:"timestamp"`
}

// BranchSummaryMessage summarises a branch of the session tree that was left.
type BranchSummaryMessage struct {
	Role    string `json:"role" jsonschema:"enum=branchSummary"`
	Summary string `json:"summary"`
	// FromID is the id of the session entry the summarised branch ended at.
	FromID    string `json:"fromId"`
	Timestamp int64  `json:"timestamp"`
}

// CompactionSummaryMessage stands for the compacted start of the conversation.
type CompactionSummaryMessage struct {
	Role    string `json:"role" jsonschema:"enum=compactionSummary"`
	Summary string `json:"summary"`
	// TokensBefore is the context size before the compaction.
	TokensBefore int   `json:"tokensBefore"`
	Timestamp    int64 `json:"timestamp"`
}

// SystemMessage declares the system prompt and the tools the model may call, as pi 1.6.0
// records them: a session's leading system message declares every prompt section and tool,
// later ones (after a compaction, or when the tools change) patch sections by name and list
// the tools added or removed; replaying them in order gives the current prompt and tools.
// It is transcript metadata: the model does not see it as a message. pi-rpc's own sessions
// write none (pi mode's do); getMessages and getEntries return those of a session file pi
// 1.6.0 or pi mode wrote.
type SystemMessage struct {
	Role string `json:"role" jsonschema:"enum=system"`
	// Content is instruction text appended to the prompt ("" when the sections say
	// everything).
	Content string `json:"content"`
	// Sections maps a section's name to its text; null removes the section.
	Sections SystemSections `json:"sections,omitempty"`
	// ToolsAdded declares tools, with their JSON-Schema parameters.
	ToolsAdded []SystemTool `json:"toolsAdded,omitempty"`
	// ToolsRemoved names tools no longer offered.
	ToolsRemoved []SystemToolRef `json:"toolsRemoved,omitempty"`
	Timestamp    int64           `json:"timestamp"`
}

// SystemSections are a [SystemMessage]'s named prompt sections: a name's text, or null to
// remove the section.
type SystemSections map[string]*string

// JSONSchema implements the schema reflector's custom schema hook: an object of strings or
// nulls.
func (SystemSections) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{
		OneOf: []*jsonschema.Schema{{Type: "string"}, {Type: "null"}}}}
}

// SystemTool is a tool a [SystemMessage] declares.
type SystemTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the tool's arguments schema (JSON Schema).
	Parameters any `json:"parameters"`
}

// SystemToolRef names a tool a [SystemMessage] removes.
type SystemToolRef struct {
	Name string `json:"name"`
}

// Message is any transcript message, told apart by role. In Go it holds the message decoded
// by core.DecodeMessage: a *core.UserMessage, *core.AssistantMessage, ... (nil for JSON null).
type Message struct{ core.Message }

// UnmarshalJSON decodes a message of any role.
func (m *Message) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		m.Message = nil
		return nil
	}
	msg, err := core.DecodeMessage(data)
	if err != nil {
		return err
	}
	m.Message = msg
	return nil
}

// MarshalJSON writes the message in its wire form.
func (m Message) MarshalJSON() ([]byte, error) { return json.Marshal(m.Message) }

// JSONSchema implements the schema reflector's custom schema hook: a one-of union.
func (Message) JSONSchema() *jsonschema.Schema {
	return union("UserMessage", "AssistantMessage", "ToolResultMessage", "BashExecutionMessage",
		"CustomMessage", "BranchSummaryMessage", "CompactionSummaryMessage", "SystemMessage")
}

// ToolResult is what a tool returned (tool_execution_end) or reported so far
// (tool_execution_update).
type ToolResult struct {
	Content []UserContent `json:"content"`
	Details any           `json:"details,omitempty"`
	// Terminate asks the agent not to call the model again after this tool batch, when every
	// result of the batch asks so. It is not part of the tool-result message.
	Terminate bool `json:"terminate,omitempty"`
}

// AssistantMessageEvent is one step of a streamed model response, keyed by contentIndex
// (steps of different blocks may interleave). It is pi's event without the partial message.
// In Go it is one flat struct holding the fields of every step; Type says which apply.
type AssistantMessageEvent struct {
	// Type is text_start, text_delta, text_end, thinking_start, ..., toolcall_end.
	Type         string `json:"type"`
	ContentIndex int    `json:"contentIndex"`
	// Delta is the text, thinking or raw tool-argument fragment of a *_delta step.
	Delta string `json:"delta,omitempty"`
	// Content is the whole text or reasoning of a text_end or thinking_end.
	Content string `json:"content,omitempty"`
	// ID and Name are a tool call's, on toolcall_start or toolcall_delta when known.
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
	// ToolCall is the finished call of a toolcall_end.
	ToolCall *ToolCall `json:"toolCall,omitempty"`
}

// MarshalJSON writes the step in its wire form, with exactly the fields of its type.
func (e AssistantMessageEvent) MarshalJSON() ([]byte, error) {
	ev := core.AssistantEvent{Type: core.AssistantEventType(e.Type), ContentIndex: e.ContentIndex,
		Delta: e.Delta, Content: e.Content, ID: e.ID, Name: e.Name}
	if e.ToolCall != nil {
		c := core.ToolCallBlock(e.ToolCall.ID, e.ToolCall.Name, e.ToolCall.Arguments)
		c.ThoughtSignature = e.ToolCall.ThoughtSignature
		ev.ToolCall = &c
	}
	return AppendAssistantEvent(nil, &ev)
}

// JSONSchema implements the schema reflector's custom schema hook: a one-of union.
func (AssistantMessageEvent) JSONSchema() *jsonschema.Schema {
	return union(defNames(stepDefs)...)
}

// union returns a one-of schema over the named $defs. The generator adds the union type's
// doc comment as its description.
func union(defs ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{}
	for _, d := range defs {
		s.OneOf = append(s.OneOf, &jsonschema.Schema{Ref: "#/$defs/" + d})
	}
	return s
}
