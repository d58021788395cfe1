package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/tools"
)

// Tool is one MCP server tool as an agent tool. Its name is mcp__<server>__<tool> (see
// [Set.Tools]); its parameters are the server's input schema as given.
type Tool struct {
	srv  *server
	def  *sdk.Tool
	name string
}

var _ core.Tool = (*Tool)(nil)

// Info implements [core.Tool].
func (t *Tool) Info() core.ToolInfo {
	label := t.def.Title
	if label == "" && t.def.Annotations != nil {
		label = t.def.Annotations.Title
	}
	if label == "" {
		label = t.def.Name
	}
	return core.ToolInfo{Name: t.name, Label: label, Description: t.def.Description, Parameters: inputSchema(t.def.InputSchema)}
}

// Server is the name of the server the tool belongs to.
func (t *Tool) Server() string { return t.srv.cfg.Name }

// ServerTool is the tool's name on its server.
func (t *Tool) ServerTool() string { return t.def.Name }

// ReadOnly reports the tool's readOnlyHint.
func (t *Tool) ReadOnly() bool { return t.def.Annotations != nil && t.def.Annotations.ReadOnlyHint }

// Destructive reports the tool's destructiveHint (true when unset, as MCP defines it, unless
// the tool is read-only).
func (t *Tool) Destructive() bool {
	a := t.def.Annotations
	if a == nil {
		return true
	}
	if a.ReadOnlyHint {
		return false
	}
	return a.DestructiveHint == nil || *a.DestructiveHint
}

// NeedsApproval reports whether a call needs the client's approval in ask mode: every MCP
// tool that does not declare readOnlyHint does, like bash.
func (t *Tool) NeedsApproval() bool { return !t.ReadOnly() }

// inputSchema is the schema passed to the model: the server's, or an empty object schema when
// the server gave none.
func inputSchema(s any) json.RawMessage {
	if s != nil {
		if data, err := json.Marshal(s); err == nil && string(data) != "null" {
			return data
		}
	}
	return json.RawMessage(`{"type":"object","properties":{}}`)
}

// Execute implements [core.Tool]: one tools/call, bounded by the call timeout. Cancelling ctx
// (an abort) returns at once; the SDK sends notifications/cancelled to the server.
func (t *Tool) Execute(ctx context.Context, call core.ToolCall, _ func(core.ToolResult)) (core.ToolResult, error) {
	s := t.srv
	name := s.cfg.Name
	s.mu.Lock()
	session, state, failure := s.session, s.state, s.failure
	s.mu.Unlock()
	if state != StateConnected || session == nil {
		if failure == "" {
			failure = state
		}
		return core.ToolResult{}, fmt.Errorf("MCP server %s is not available: %s", name, failure)
	}
	timeout := s.opts.callTimeout()
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args := call.Args
	if args == nil {
		args = map[string]any{}
	}
	res, err := session.CallTool(callCtx, &sdk.CallToolParams{Name: t.def.Name, Arguments: args})
	switch {
	case ctx.Err() != nil:
		return core.ToolResult{}, fmt.Errorf("MCP server %s: the call of %s was aborted", name, t.def.Name)
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		return core.ToolResult{}, s.callFault(t.def.Name, fmt.Sprintf("tool %s did not answer within %s", t.def.Name, timeout))
	case err != nil:
		// A connection that ended fails the server; its watcher says why.
		<-s.watchedOrDone(err)
		if st := s.snapshot(); st.state == StateFailed {
			return core.ToolResult{}, fmt.Errorf("MCP server %s failed during the call of %s: %s", name, t.def.Name, st.failure)
		}
		return core.ToolResult{}, s.callFault(t.def.Name, fmt.Sprintf("tool %s: %v", t.def.Name, err))
	}
	s.setLastError("")
	return toResult(res)
}

// watchedOrDone returns a channel that is closed when the connection watcher has ended, if
// err says the connection closed, or at once otherwise.
func (s *server) watchedOrDone(err error) <-chan struct{} {
	if errors.Is(err, sdk.ErrConnectionClosed) || strings.Contains(err.Error(), "connection closed") || strings.Contains(err.Error(), "EOF") {
		return s.watched
	}
	done := make(chan struct{})
	close(done)
	return done
}

// callFault records a call's fault, reports it and returns it as the call's error.
func (s *server) callFault(tool, msg string) error {
	s.setLastError(msg)
	s.opts.fault(Fault{Server: s.cfg.Name, Tool: tool, Message: msg})
	return fmt.Errorf("MCP server %s: %s", s.cfg.Name, msg)
}

// toResult maps a tools/call result to the agent's: text and images as they are, audio,
// resource links and binary resources as a line of text saying what they are, structured
// content as JSON text when no text carries it. Text is cut to the limits of the built-in
// tools. A result with isError becomes an error with its text.
func toResult(res *sdk.CallToolResult) (core.ToolResult, error) {
	var blocks []core.Content
	hasText := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			blocks = append(blocks, core.TextBlock(c.Text))
			hasText = true
		case *sdk.ImageContent:
			blocks = append(blocks, core.ImageBlock(base64.StdEncoding.EncodeToString(c.Data), c.MIMEType))
		case *sdk.AudioContent:
			blocks = append(blocks, core.TextBlock(fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data))))
		case *sdk.ResourceLink:
			blocks = append(blocks, core.TextBlock(fmt.Sprintf("[resource: %s %s]", c.Name, c.URI)))
		case *sdk.EmbeddedResource:
			blocks = append(blocks, resourceBlock(c.Resource))
		}
	}
	if res.StructuredContent != nil && !hasText {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			blocks = append(blocks, core.TextBlock(string(data)))
		}
	}
	blocks, truncation := truncateText(blocks)
	if res.IsError {
		var texts []string
		images := 0
		for _, b := range blocks {
			if b.Type == core.ContentText {
				texts = append(texts, b.Text)
			} else {
				images++
			}
		}
		msg := strings.Join(texts, "\n")
		if images > 0 {
			msg += fmt.Sprintf("\n[%d image(s) omitted from the error]", images)
		}
		if strings.TrimSpace(msg) == "" {
			msg = "the tool reported an error without a message"
		}
		return core.ToolResult{}, errors.New(msg)
	}
	result := core.ToolResult{Content: blocks}
	if truncation != nil {
		result.Details = map[string]any{"truncation": truncation}
	}
	return result, nil
}

func resourceBlock(r *sdk.ResourceContents) core.Content {
	switch {
	case r == nil:
		return core.TextBlock("[resource]")
	case r.Blob == nil:
		return core.TextBlock(r.Text)
	case strings.HasPrefix(r.MIMEType, "image/"):
		return core.ImageBlock(base64.StdEncoding.EncodeToString(r.Blob), r.MIMEType)
	}
	return core.TextBlock(fmt.Sprintf("[resource %s: %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob)))
}

// truncateText cuts the text blocks, in order, to tools.MaxLines and tools.MaxBytes in all;
// text past the limit is dropped and a notice says how much was shown. It returns the
// truncation of the text as a whole when anything was cut.
func truncateText(blocks []core.Content) ([]core.Content, *tools.Truncation) {
	var all []string
	for _, b := range blocks {
		if b.Type == core.ContentText {
			all = append(all, b.Text)
		}
	}
	whole := strings.Join(all, "\n")
	t := tools.TruncateHead(whole, tools.MaxLines, tools.MaxBytes)
	if !t.Truncated {
		return blocks, nil
	}
	kept := t.Content
	if t.FirstLineExceedsLimit {
		kept = cutBytes(whole, tools.MaxBytes)
		t.Content, t.OutputBytes, t.OutputLines = kept, len(kept), 1
	}
	// The text blocks lie end to end in whole, one newline apart; each keeps its part of kept.
	out := make([]core.Content, 0, len(blocks)+1)
	off := 0
	for _, b := range blocks {
		if b.Type != core.ContentText {
			out = append(out, b)
			continue
		}
		if off < len(kept) {
			out = append(out, core.TextBlock(kept[off:min(off+len(b.Text), len(kept))]))
		}
		off += len(b.Text) + 1
	}
	notice := fmt.Sprintf("[Output truncated: showing %d of %d lines (%s limit). The rest of the tool's output was dropped.]",
		t.OutputLines, t.TotalLines, formatLimit(t))
	out = append(out, core.TextBlock(notice))
	t.Content = ""
	return out, &t
}

func formatLimit(t tools.Truncation) string {
	if t.TruncatedBy != nil && *t.TruncatedBy == "lines" {
		return fmt.Sprintf("%d lines", t.MaxLines)
	}
	return fmt.Sprintf("%d KB", t.MaxBytes/1024)
}

// cutBytes returns s's first n bytes, backing off to a UTF-8 boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
