package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

const (
	// sessionEntries is scenario 7's entry count: a model_change, a thinking_level_change and
	// sessionMessages message entries.
	sessionEntries  = 10000
	sessionMessages = sessionEntries - 2
)

// entryID returns the i-th entry id: 8 hex digits, distinct for every i (multiplying by an odd
// constant is a bijection modulo 2^32).
func entryID(i int) string { return fmt.Sprintf("%08x", uint32(i+1)*2654435761) }

// The types below write pi's key order (session-manager.ts): type, id, parentId, timestamp,
// then the entry's own fields; a message's role first.
type (
	sessionHeader struct {
		Type      string `json:"type"`
		Version   int    `json:"version"`
		ID        string `json:"id"`
		Timestamp string `json:"timestamp"`
		Cwd       string `json:"cwd"`
	}
	entryHead struct {
		Type      string  `json:"type"`
		ID        string  `json:"id"`
		ParentID  *string `json:"parentId"`
		Timestamp string  `json:"timestamp"`
	}
	modelChange struct {
		entryHead
		Provider string `json:"provider"`
		ModelID  string `json:"modelId"`
	}
	thinkingChange struct {
		entryHead
		ThinkingLevel string `json:"thinkingLevel"`
	}
	messageEntry struct {
		entryHead
		Message any `json:"message"`
	}
	block struct {
		Type      string            `json:"type"`
		Text      string            `json:"text,omitempty"`
		ID        string            `json:"id,omitempty"`
		Name      string            `json:"name,omitempty"`
		Arguments map[string]string `json:"arguments,omitempty"`
	}
	userMessage struct {
		Role      string  `json:"role"`
		Content   []block `json:"content"`
		Timestamp int64   `json:"timestamp"`
	}
	assistantMessage struct {
		Role       string  `json:"role"`
		Content    []block `json:"content"`
		API        string  `json:"api"`
		Provider   string  `json:"provider"`
		Model      string  `json:"model"`
		Usage      usage   `json:"usage"`
		StopReason string  `json:"stopReason"`
		Timestamp  int64   `json:"timestamp"`
	}
	toolResultMessage struct {
		Role       string  `json:"role"`
		ToolCallID string  `json:"toolCallId"`
		ToolName   string  `json:"toolName"`
		Content    []block `json:"content"`
		IsError    bool    `json:"isError"`
		Timestamp  int64   `json:"timestamp"`
	}
	usage struct {
		Input       int  `json:"input"`
		Output      int  `json:"output"`
		CacheRead   int  `json:"cacheRead"`
		CacheWrite  int  `json:"cacheWrite"`
		TotalTokens int  `json:"totalTokens"`
		Cost        cost `json:"cost"`
	}
	cost struct {
		Input      float64 `json:"input"`
		Output     float64 `json:"output"`
		CacheRead  float64 `json:"cacheRead"`
		CacheWrite float64 `json:"cacheWrite"`
		Total      float64 `json:"total"`
	}
)

const isoMillis = "2006-01-02T15:04:05.000Z"

// sessionHeaderID is the session id in the header writeSession writes.
const sessionHeaderID = "019e0000-0000-7000-8000-000000000001"

// writeSession writes a pi session file (version 3, docs/sessions.md) of n entries in one chain:
// a model_change, a thinking_level_change, then messages cycling through a user prompt, an
// assistant tool call to read, its tool result and an assistant answer: what a long working
// session looks like.
func writeSession(path, cwd string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	base := time.Date(2026, 5, 7, 10, 0, 0, 0, time.UTC)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	write := func(v any) {
		if err == nil {
			err = enc.Encode(v)
		}
	}
	write(sessionHeader{Type: "session", Version: 3, ID: sessionHeaderID, Timestamp: base.Format(isoMillis), Cwd: cwd})
	use := usage{Input: 1200, Output: 80, TotalTokens: 1280}
	for i := range n {
		at := base.Add(time.Duration(i) * time.Second)
		h := entryHead{ID: entryID(i), Timestamp: at.Format(isoMillis)}
		if i > 0 {
			parent := entryID(i - 1)
			h.ParentID = &parent
		}
		ts := at.UnixMilli()
		switch i {
		case 0:
			h.Type = "model_change"
			write(modelChange{h, "mock", modelID})
		case 1:
			h.Type = "thinking_level_change"
			write(thinkingChange{h, "off"})
		default:
			h.Type = "message"
			var m any
			switch (i - 2) % 4 {
			case 0:
				m = userMessage{"user", []block{{Type: "text", Text: fmt.Sprintf("Step %d: read notes.txt and tell me what changed since the last step.", i)}}, ts}
			case 1:
				m = assistantMessage{"assistant", []block{
					{Type: "text", Text: "Let me read the file."},
					{Type: "toolCall", ID: fmt.Sprintf("call_%d", i), Name: "read", Arguments: map[string]string{"path": "notes.txt"}},
				}, "openai-completions", "mock", modelID, use, "toolUse", ts}
			case 2:
				m = toolResultMessage{"toolResult", fmt.Sprintf("call_%d", i-1), "read", []block{{Type: "text", Text: smallFile}}, false, ts}
			case 3:
				m = assistantMessage{"assistant", []block{{Type: "text", Text: fmt.Sprintf(
					"Nothing changed in notes.txt since step %d: it still describes the benchmark's read tool and its short result.", i-3)}},
					"openai-completions", "mock", modelID, use, "stop", ts}
			}
			write(messageEntry{h, m})
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
