package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// The entry types of pi's session format, version 3.
const (
	EntryMessage             sessionapi.EntryType = "message"
	EntryThinkingLevelChange sessionapi.EntryType = "thinking_level_change"
	EntryModelChange         sessionapi.EntryType = "model_change"
	EntryCompaction          sessionapi.EntryType = "compaction"
	EntryBranchSummary       sessionapi.EntryType = "branch_summary"
	EntryCustom              sessionapi.EntryType = "custom"
	EntryCustomMessage       sessionapi.EntryType = "custom_message"
	EntryLabel               sessionapi.EntryType = "label"
	EntrySessionInfo         sessionapi.EntryType = "session_info"
	// pi 1.6.0's entries: usage outside assistant messages, and edits of the model context.
	EntryUsage       sessionapi.EntryType = "usage"
	EntryContextEdit sessionapi.EntryType = "context_edit"
)

// Entry is one node of the session tree. It is one flat struct; Type says which fields apply,
// and the JSON form has exactly pi's fields for that type. Entries read from a file keep their
// original line in Raw so that copying them (a fork) preserves fields this version does not
// know.
type Entry struct {
	Type sessionapi.EntryType
	// ID is 8 hex digits; ParentID is empty for a root.
	ID        string
	ParentID  string
	Timestamp string // ISO-8601, milliseconds, UTC

	// Message is the message of a message entry.
	Message core.Message
	// ThinkingLevel is a thinking_level_change's level.
	ThinkingLevel core.ThinkingLevel
	// Provider and ModelID are a model_change's.
	Provider string
	ModelID  string
	// Summary, FirstKeptEntryID, TokensBefore, Details and FromHook are a compaction's;
	// Summary, FromID, Details and FromHook a branch_summary's.
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	Details          json.RawMessage
	FromHook         bool
	FromID           string
	// Usage is what generating a compaction's or branch_summary's summary used, and a usage
	// entry's usage; Kind, Model (and Provider) and Note are a usage entry's.
	Usage *core.Usage
	Kind  string
	Model string
	Note  string
	// SystemMessage is a compaction's checkpoint of the prompt and tools (pi 1.6.0): it leads
	// the compacted context.
	SystemMessage *core.SystemMessage
	// Replacement is a context_edit's new content for its TargetID, or nil (JSON null): the
	// target leaves the model context.
	Replacement json.RawMessage
	// CustomType and Data are a custom entry's; CustomType, Content, Display and Details a
	// custom_message's.
	CustomType string
	Data       json.RawMessage
	Content    []core.Content
	Display    bool
	// TargetID and Label are a label's (an empty Label clears it).
	TargetID string
	Label    string
	// Name is a session_info's session name (empty clears it).
	Name string

	// Raw is the entry's line as read from a file, if it was.
	Raw json.RawMessage
}

type entryHead struct {
	Type      sessionapi.EntryType `json:"type"`
	ID        string               `json:"id"`
	ParentID  *string              `json:"parentId"`
	Timestamp string               `json:"timestamp"`
}

func (e *Entry) head() entryHead {
	h := entryHead{Type: e.Type, ID: e.ID, Timestamp: e.Timestamp}
	if e.ParentID != "" {
		p := e.ParentID
		h.ParentID = &p
	}
	return h
}

// MarshalJSON writes the entry in pi's shape, or its original line if it was read from a file.
func (e *Entry) MarshalJSON() ([]byte, error) {
	if len(e.Raw) > 0 {
		return e.Raw, nil
	}
	h := e.head()
	switch e.Type {
	case EntryMessage:
		return json.Marshal(struct {
			entryHead
			Message core.Message `json:"message"`
		}{h, e.Message})
	case EntryThinkingLevelChange:
		return json.Marshal(struct {
			entryHead
			ThinkingLevel core.ThinkingLevel `json:"thinkingLevel"`
		}{h, e.ThinkingLevel})
	case EntryModelChange:
		return json.Marshal(struct {
			entryHead
			Provider string `json:"provider"`
			ModelID  string `json:"modelId"`
		}{h, e.Provider, e.ModelID})
	case EntryCompaction:
		return json.Marshal(struct {
			entryHead
			Summary          string              `json:"summary"`
			FirstKeptEntryID string              `json:"firstKeptEntryId"`
			TokensBefore     int                 `json:"tokensBefore"`
			Details          json.RawMessage     `json:"details,omitempty"`
			FromHook         bool                `json:"fromHook,omitempty"`
			Usage            *core.Usage         `json:"usage,omitempty"`
			SystemMessage    *core.SystemMessage `json:"systemMessage,omitempty"`
		}{h, e.Summary, e.FirstKeptEntryID, e.TokensBefore, e.Details, e.FromHook, e.Usage, e.SystemMessage})
	case EntryBranchSummary:
		return json.Marshal(struct {
			entryHead
			FromID   string          `json:"fromId"`
			Summary  string          `json:"summary"`
			Details  json.RawMessage `json:"details,omitempty"`
			FromHook bool            `json:"fromHook,omitempty"`
			Usage    *core.Usage     `json:"usage,omitempty"`
		}{h, e.FromID, e.Summary, e.Details, e.FromHook, e.Usage})
	case EntryCustom:
		return json.Marshal(struct {
			entryHead
			CustomType string          `json:"customType"`
			Data       json.RawMessage `json:"data,omitempty"`
		}{h, e.CustomType, e.Data})
	case EntryCustomMessage:
		content := e.Content
		if content == nil {
			content = []core.Content{}
		}
		return json.Marshal(struct {
			entryHead
			CustomType string          `json:"customType"`
			Content    []core.Content  `json:"content"`
			Display    bool            `json:"display"`
			Details    json.RawMessage `json:"details,omitempty"`
		}{h, e.CustomType, content, e.Display, e.Details})
	case EntryLabel:
		return json.Marshal(struct {
			entryHead
			TargetID string `json:"targetId"`
			Label    string `json:"label,omitempty"`
		}{h, e.TargetID, e.Label})
	case EntrySessionInfo:
		return json.Marshal(struct {
			entryHead
			Name string `json:"name,omitempty"`
		}{h, e.Name})
	case EntryContextEdit:
		replacement := e.Replacement
		if len(replacement) == 0 {
			replacement = json.RawMessage("null")
		}
		return json.Marshal(struct {
			entryHead
			TargetID    string          `json:"targetId"`
			Replacement json.RawMessage `json:"replacement"`
		}{h, e.TargetID, replacement})
	case EntryUsage:
		return json.Marshal(struct {
			entryHead
			Kind     string      `json:"kind"`
			Provider string      `json:"provider"`
			Model    string      `json:"model"`
			Usage    *core.Usage `json:"usage"`
			Note     string      `json:"note,omitempty"`
		}{h, e.Kind, e.Provider, e.Model, e.Usage, e.Note})
	}
	return nil, fmt.Errorf("session: cannot marshal entry of type %q", e.Type)
}

// entryJSON holds the fields of every entry type, so that a line decodes in one pass (its
// message included) whatever its type.
type entryJSON struct {
	entryHead
	Message          *core.MessageJSON  `json:"message"`
	ThinkingLevel    core.ThinkingLevel `json:"thinkingLevel"`
	Provider         string             `json:"provider"`
	ModelID          string             `json:"modelId"`
	Summary          string             `json:"summary"`
	FirstKeptEntryID string             `json:"firstKeptEntryId"`
	TokensBefore     int                `json:"tokensBefore"`
	Details          json.RawMessage    `json:"details"`
	FromHook         bool               `json:"fromHook"`
	FromID           string             `json:"fromId"`
	Usage            *core.Usage        `json:"usage"`
	Kind             string             `json:"kind"`
	Model            string             `json:"model"`
	Note             string             `json:"note"`
	SystemMessage    json.RawMessage    `json:"systemMessage"`
	Replacement      json.RawMessage    `json:"replacement"`
	CustomType       string             `json:"customType"`
	Data             json.RawMessage    `json:"data"`
	Content          []core.Content     `json:"content"`
	Display          bool               `json:"display"`
	TargetID         string             `json:"targetId"`
	Label            string             `json:"label"`
	Name             string             `json:"name"`
}

// UnmarshalJSON reads an entry of any type and keeps a copy of the line in Raw.
func (e *Entry) UnmarshalJSON(data []byte) error {
	if err := e.decode(data); err != nil {
		return err
	}
	e.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// decode reads an entry of any type without keeping the line (the caller decides whether to
// share or copy it).
func (e *Entry) decode(data []byte) error {
	return e.decodeWith(data, &entryScratch{})
}

// scratchPool holds decoding space for entries decoded one at a time, on demand.
var scratchPool = sync.Pool{New: func() any { return &entryScratch{} }}

// decodeBody decodes an entry's line in full. It never returns nil: when the line does not
// decode, the entry has what its head gives (the timestamp) and the error says why.
func decodeBody(raw []byte) (*Entry, error) {
	sc := scratchPool.Get().(*entryScratch)
	defer scratchPool.Put(sc)
	e := &Entry{}
	if err := e.decodeWith(raw, sc); err != nil {
		var h entryHead
		_ = json.Unmarshal(raw, &h)
		return &Entry{Timestamp: h.Timestamp}, err
	}
	return e, nil
}

// entryScratch is the decoding space of one line, reused line after line by a loader so that
// decoding a large file makes little garbage: only what the entry keeps is allocated.
type entryScratch struct {
	w    entryJSON
	msg  core.MessageJSON
	head lineHead
	// heads scans the heads of a lazy open, reused line after line.
	heads headScanner
}

// decodeWith decodes with reusable scratch space.
func (e *Entry) decodeWith(data []byte, sc *entryScratch) error {
	sc.w, sc.msg = entryJSON{}, core.MessageJSON{}
	sc.w.Message = &sc.msg
	w := &sc.w
	err := json.Unmarshal(data, w)
	for _, path := range []string{"message.content", "content"} {
		if core.IsStringContent(err, path) {
			err = recoverStringContent(data, path, w)
		}
	}
	if err != nil {
		return err
	}
	*e = Entry{
		Type: w.Type, ID: w.ID, Timestamp: w.Timestamp,
		ThinkingLevel: w.ThinkingLevel, Provider: w.Provider, ModelID: w.ModelID,
		Summary: w.Summary, FirstKeptEntryID: w.FirstKeptEntryID, TokensBefore: w.TokensBefore,
		Details: w.Details, FromHook: w.FromHook, FromID: w.FromID, Usage: w.Usage,
		Kind: w.Kind, Model: w.Model, Note: w.Note,
		CustomType: w.CustomType, Data: w.Data, Display: w.Display,
		TargetID: w.TargetID, Label: w.Label, Name: w.Name, Content: w.Content,
	}
	if w.ParentID != nil {
		e.ParentID = *w.ParentID
	}
	switch e.Type {
	case EntryMessage:
		if w.Message == nil || w.Message.Role == "" {
			return errors.New("session: message entry without a message")
		}
		if e.Message, err = w.Message.Message(); err != nil {
			return err
		}
	case EntryCompaction:
		if len(w.SystemMessage) > 0 && string(w.SystemMessage) != "null" {
			m, err := core.DecodeMessage(w.SystemMessage)
			if err != nil {
				return fmt.Errorf("session: compaction systemMessage: %w", err)
			}
			sys, ok := m.(*core.SystemMessage)
			if !ok {
				return fmt.Errorf("session: compaction systemMessage has role %q", m.Role())
			}
			e.SystemMessage = sys
		}
	case EntryContextEdit:
		if len(w.Replacement) > 0 && string(w.Replacement) != "null" {
			e.Replacement = append(json.RawMessage(nil), w.Replacement...)
		}
	case EntryThinkingLevelChange, EntryModelChange, EntryBranchSummary,
		EntryCustom, EntryCustomMessage, EntryLabel, EntrySessionInfo, EntryUsage:
	default:
		return fmt.Errorf("session: unknown entry type %q", e.Type)
	}
	return nil
}

// recoverStringContent decodes content written as a plain string, which the one-pass decode
// reported as a type error (the decoder fills every other field before reporting it).
func recoverStringContent(data []byte, path string, w *entryJSON) error {
	w.Content = nil
	var raw struct {
		Content json.RawMessage `json:"content"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if path == "content" {
		blocks, err := core.DecodeContentString(raw.Content)
		w.Content = blocks
		return err
	}
	blocks, err := core.DecodeContentString(raw.Message.Content)
	if w.Message != nil {
		w.Message.Content = blocks
	}
	return err
}

// CompactionFileDetails decodes a compaction entry's details, if it has the standard shape.
func (e *Entry) CompactionFileDetails() *sessionapi.CompactionDetails {
	if len(e.Details) == 0 {
		return nil
	}
	var d sessionapi.CompactionDetails
	if json.Unmarshal(e.Details, &d) != nil {
		return nil
	}
	return &d
}

// holdsMessage reports a message entry holding a message of type M (*core.UserMessage, ...).
func holdsMessage[M core.Message](e *Entry) bool {
	if e.Type != EntryMessage {
		return false
	}
	_, ok := e.Message.(M)
	return ok
}
