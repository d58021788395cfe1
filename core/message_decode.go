package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Decoding messages: content written as a string or blocks, details kept raw, and the
// single-pass MessageJSON that session files are read with.

// UnmarshalJSON accepts content as a string or an array of blocks.
func (m *UserMessage) UnmarshalJSON(data []byte) error {
	type alias UserMessage
	var raw struct {
		*alias
		Content json.RawMessage `json:"content"`
	}
	raw.alias = (*alias)(m)
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	blocks, err := decodeBlocks(raw.Content)
	m.Content = blocks
	return err
}

// UnmarshalJSON accepts content as a string or an array of blocks.
func (m *CustomMessage) UnmarshalJSON(data []byte) error {
	type alias CustomMessage
	var raw struct {
		*alias
		Content json.RawMessage `json:"content"`
		Details json.RawMessage `json:"details"`
	}
	raw.alias = (*alias)(m)
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if len(raw.Details) > 0 {
		m.Details = raw.Details
	}
	blocks, err := decodeBlocks(raw.Content)
	m.Content = blocks
	return err
}

// UnmarshalJSON keeps details as raw JSON so they round-trip unchanged.
func (m *ToolResultMessage) UnmarshalJSON(data []byte) error {
	type alias ToolResultMessage
	var raw struct {
		*alias
		Content json.RawMessage `json:"content"`
		Details json.RawMessage `json:"details"`
	}
	raw.alias = (*alias)(m)
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if len(raw.Details) > 0 && string(raw.Details) != "null" {
		m.Details = raw.Details
	}
	blocks, err := decodeBlocks(raw.Content)
	m.Content = blocks
	return err
}

// UnmarshalJSON guarantees a non-nil content slice of known block types.
func (m *AssistantMessage) UnmarshalJSON(data []byte) error {
	type alias AssistantMessage
	if err := json.Unmarshal(data, (*alias)(m)); err != nil {
		return err
	}
	m.Content = nonNil(m.Content)
	return checkBlocks(m.Content)
}

// MessageJSON holds the fields of every message role, so that a message of any role decodes
// in a single pass (a session file holds hundreds of thousands of them); Message then builds
// the typed message. Content is decoded as blocks directly: content written as a plain string
// makes the decoder report a type error for the field, and DecodeContentString recovers it.
type MessageJSON struct {
	Role      Role      `json:"role"`
	Content   []Content `json:"content"`
	Timestamp int64     `json:"timestamp"`

	API           string          `json:"api"`
	Provider      string          `json:"provider"`
	Model         string          `json:"model"`
	ResponseModel string          `json:"responseModel"`
	ResponseID    string          `json:"responseId"`
	Diagnostics   json.RawMessage `json:"diagnostics"`
	Usage         Usage           `json:"usage"`
	StopReason    StopReason      `json:"stopReason"`
	ErrorMessage  string          `json:"errorMessage"`
	DurationMs    *int64          `json:"durationMs"`
	ThinkingLevel ThinkingLevel   `json:"thinkingLevel"`
	RawStopReason string          `json:"rawStopReason"`

	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Details    json.RawMessage `json:"details"`
	IsError    bool            `json:"isError"`

	Command            string `json:"command"`
	Output             string `json:"output"`
	ExitCode           *int   `json:"exitCode"`
	Cancelled          bool   `json:"cancelled"`
	Truncated          bool   `json:"truncated"`
	FullOutputPath     string `json:"fullOutputPath"`
	ExcludeFromContext bool   `json:"excludeFromContext"`

	Sections     json.RawMessage `json:"sections"`
	ToolsAdded   json.RawMessage `json:"toolsAdded"`
	ToolsRemoved json.RawMessage `json:"toolsRemoved"`

	CustomType   string `json:"customType"`
	Display      bool   `json:"display"`
	Summary      string `json:"summary"`
	FromID       string `json:"fromId"`
	TokensBefore int    `json:"tokensBefore"`
}

// IsStringContent reports whether err is the decoder's complaint about content written as a
// plain string at field path (e.g. "content" or "message.content").
func IsStringContent(err error, path string) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te) && te.Field == path && te.Value == "string"
}

// DecodeContentString decodes content written as a plain string: the text of a single block.
func DecodeContentString(raw json.RawMessage) ([]Content, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return nil, err
	}
	return []Content{TextBlock(text)}, nil
}

func details(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// Message builds the typed message.
func (w *MessageJSON) Message() (Message, error) {
	content := nonNil(w.Content)
	if err := checkBlocks(content); err != nil {
		return nil, err
	}
	switch w.Role {
	case RoleSystem:
		var text strings.Builder
		for _, c := range content {
			text.WriteString(c.Text)
		}
		return &SystemMessage{Content: text.String(), Sections: rawOrNil(w.Sections), ToolsAdded: rawOrNil(w.ToolsAdded),
			ToolsRemoved: rawOrNil(w.ToolsRemoved), Timestamp: w.Timestamp}, nil
	case RoleUser:
		return &UserMessage{Content: content, Timestamp: w.Timestamp}, nil
	case RoleAssistant:
		return &AssistantMessage{
			Content: content, API: w.API, Provider: w.Provider, Model: w.Model,
			ResponseModel: w.ResponseModel, ResponseID: w.ResponseID, Diagnostics: w.Diagnostics,
			Usage: w.Usage, StopReason: w.StopReason, ErrorMessage: w.ErrorMessage, Timestamp: w.Timestamp,
			DurationMs: w.DurationMs, ThinkingLevel: w.ThinkingLevel, RawStopReason: w.RawStopReason,
		}, nil
	case RoleToolResult:
		return &ToolResultMessage{ToolCallID: w.ToolCallID, ToolName: w.ToolName, Content: content,
			Details: details(w.Details), IsError: w.IsError, DurationMs: w.DurationMs, Timestamp: w.Timestamp}, nil
	case RoleBashExecution:
		return &BashExecutionMessage{Command: w.Command, Output: w.Output, ExitCode: w.ExitCode,
			Cancelled: w.Cancelled, Truncated: w.Truncated, FullOutputPath: w.FullOutputPath,
			Timestamp: w.Timestamp, ExcludeFromContext: w.ExcludeFromContext}, nil
	case RoleCustom:
		return &CustomMessage{CustomType: w.CustomType, Content: content, Display: w.Display,
			Details: details(w.Details), Timestamp: w.Timestamp}, nil
	case RoleBranchSummary:
		return &BranchSummaryMessage{Summary: w.Summary, FromID: w.FromID, Timestamp: w.Timestamp}, nil
	case RoleCompactionSummary:
		return &CompactionSummaryMessage{Summary: w.Summary, TokensBefore: w.TokensBefore, Timestamp: w.Timestamp}, nil
	}
	return nil, fmt.Errorf("core: unknown message role %q", w.Role)
}

// rawOrNil copies a raw field that was present (the decoder reuses its buffers); null and
// absent are nil.
func rawOrNil(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return append(json.RawMessage(nil), raw...)
}

// DecodeMessage reads one message of any role from its JSON form.
func DecodeMessage(data []byte) (Message, error) {
	var w MessageJSON
	err := json.Unmarshal(data, &w)
	if IsStringContent(err, "content") {
		var raw struct {
			Content json.RawMessage `json:"content"`
		}
		if err = json.Unmarshal(data, &raw); err == nil {
			w.Content, err = DecodeContentString(raw.Content)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("core: %s message: %w", w.Role, err)
	}
	return w.Message()
}

// Messages is a transcript that decodes each element by its role.
type Messages []Message

// UnmarshalJSON decodes each element with [DecodeMessage].
func (ms *Messages) UnmarshalJSON(data []byte) error {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return err
	}
	out := make(Messages, 0, len(raws))
	for i, raw := range raws {
		m, err := DecodeMessage(raw)
		if err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
		out = append(out, m)
	}
	*ms = out
	return nil
}
