package main

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pi-rpc/pi-rpc/clients/go"
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// transcript prints the conversation compactly: one line per request and per event of
// interest, with streamed text and thinking coalesced into one line per block. Every line
// comes from the wire, so on the faux model the output is the same on every run; paths are
// printed relative to the demo's directory for the same reason.
type transcript struct {
	mu    sync.Mutex // requests may be printed from a permission handler's goroutine
	w     io.Writer
	scrub func(string) string
	block *block
}

// block is a streamed text or thinking block being coalesced.
type block struct {
	kind        string
	first, last int64
	runID       string
	text        strings.Builder
}

func newTranscript(w io.Writer, dir string) *transcript {
	return &transcript{w: w, scrub: func(s string) string {
		s = strings.ReplaceAll(s, dir+"/", "")
		return strings.ReplaceAll(s, dir, ".")
	}}
}

// line prints one line, after any block being coalesced (which then ends).
func (t *transcript) line(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flushLocked()
	fmt.Fprintf(t.w, format+"\n", args...)
}

// request prints a call and its answer: → method arg  ← answer.
func (t *transcript) request(method, arg, answer string) {
	if arg != "" {
		arg = " " + arg
	}
	t.line("→ %s%s  ← %s", method, arg, answer)
}

func (t *transcript) flushLocked() {
	b := t.block
	if b == nil {
		return
	}
	t.block = nil
	seq := strconv.FormatInt(b.first, 10)
	if b.last > b.first {
		seq += "-" + strconv.FormatInt(b.last, 10)
	}
	fmt.Fprintf(t.w, "[seq %s %s] %s %s\n", seq, b.runID, b.kind, quote(t.scrub(b.text.String()), 100))
}

func prefix(ev piclient.Event) string {
	if ev.RunID == "" {
		return fmt.Sprintf("[seq %d]", ev.Seq)
	}
	return fmt.Sprintf("[seq %d %s]", ev.Seq, ev.RunID)
}

// event prints one event (or adds it to the block being coalesced).
func (t *transcript) event(ev piclient.Event) error {
	switch ev.Type {
	case string(core.MessageUpdate):
		var u struct {
			AssistantMessageEvent struct {
				Type  string `json:"type"`
				Delta string `json:"delta"`
			} `json:"assistantMessageEvent"`
		}
		if err := ev.Decode(&u); err != nil {
			return err
		}
		t.update(ev, u.AssistantMessageEvent.Type, u.AssistantMessageEvent.Delta)
		return nil
	case string(core.TurnEnd), string(core.ToolExecutionUpdate):
		return nil // turn_start marks turns; tool updates depend on timing, so never print them
	}
	text, err := t.describe(ev)
	if err != nil {
		return fmt.Errorf("%s event (seq %d): %w", ev.Type, ev.Seq, err)
	}
	if text != "" {
		t.line("%s %s", prefix(ev), text)
	}
	return nil
}

// update coalesces text and thinking deltas; tool-call argument deltas are not printed, as
// tool_execution_start shows the finished arguments.
func (t *transcript) update(ev piclient.Event, typ, delta string) {
	kind, step, ok := strings.Cut(typ, "_")
	if !ok || (kind != "text" && kind != "thinking") {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if step == "start" {
		t.flushLocked()
	}
	if step == "end" && t.block == nil {
		return // the block was already printed (an abort's end events come after the abort line)
	}
	if t.block == nil {
		t.block = &block{kind: kind, first: ev.Seq, runID: ev.RunID}
	}
	t.block.last = ev.Seq
	t.block.text.WriteString(delta)
	if step == "end" {
		t.flushLocked()
	}
}

// describe renders the events the transcript shows; "" hides one.
func (t *transcript) describe(ev piclient.Event) (string, error) {
	switch ev.Type {
	case string(core.AgentStart), string(core.AgentEnd), string(core.TurnStart):
		return ev.Type, nil
	case string(core.MessageStart):
		var m struct {
			Message struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
			InputID string `json:"inputId"`
		}
		if err := ev.Decode(&m); err != nil {
			return "", err
		}
		if m.Message.Role != string(core.RoleUser) {
			return "", nil // assistant text is coalesced, tool results are shown by tool_execution_end
		}
		return fmt.Sprintf("user %s %s", orNone(m.InputID), quote(t.scrub(userText(m.Message.Content)), 100)), nil
	case string(core.MessageEnd):
		var m struct {
			Message struct {
				Role         string `json:"role"`
				StopReason   string `json:"stopReason"`
				ErrorMessage string `json:"errorMessage"`
			} `json:"message"`
		}
		if err := ev.Decode(&m); err != nil {
			return "", err
		}
		if m.Message.Role != string(core.RoleAssistant) {
			return "", nil
		}
		s := "assistant end: " + m.Message.StopReason
		if m.Message.ErrorMessage != "" {
			s += " " + quote(t.scrub(m.Message.ErrorMessage), 100)
		}
		return s, nil
	case string(core.ToolExecutionStart):
		var e protocol.ToolExecutionStartEvent
		if err := ev.Decode(&e); err != nil {
			return "", err
		}
		return fmt.Sprintf("tool %s %s", e.ToolName, t.args(e.Args)), nil
	case string(core.ToolExecutionEnd):
		var e struct {
			ToolName string `json:"toolName"`
			Result   struct {
				Content []core.Content `json:"content"`
			} `json:"result"`
			IsError bool `json:"isError"`
		}
		if err := ev.Decode(&e); err != nil {
			return "", err
		}
		mark := "ok"
		if e.IsError {
			mark = "failed"
		}
		return fmt.Sprintf("tool %s %s: %s", e.ToolName, mark, t.resultText(e.Result.Content)), nil
	case sessionapi.EventQueueUpdate:
		var q sessionapi.QueueUpdate
		if err := ev.Decode(&q); err != nil {
			return "", err
		}
		return fmt.Sprintf("queue_update steering=%s followUp=%s", queued(q.Steering), queued(q.FollowUp)), nil
	case sessionapi.EventPermissionRequested:
		var p sessionapi.PermissionRequested
		if err := ev.Decode(&p); err != nil {
			return "", err
		}
		return fmt.Sprintf("permission_requested %s for %s", p.RequestID, p.ToolName), nil
	case sessionapi.EventPermissionResolved:
		var p sessionapi.PermissionResolved
		if err := ev.Decode(&p); err != nil {
			return "", err
		}
		out := fmt.Sprintf("permission_resolved %s %s by %s", p.RequestID, p.Decision, p.By)
		if p.Reason != "" {
			out += " " + quote(p.Reason, 80)
		}
		return out, nil
	case sessionapi.EventAgentSettled:
		var s sessionapi.Settled
		if err := ev.Decode(&s); err != nil {
			return "", err
		}
		return "agent_settled " + settled(&s), nil
	}
	return ev.Type, nil
}

// settled renders an agent_settled payload (also waitSettled's result).
func settled(s *sessionapi.Settled) string {
	parts := make([]string, len(s.Inputs))
	for i, in := range s.Inputs {
		parts[i] = in.InputID + " " + string(in.Outcome)
	}
	out := fmt.Sprintf("inputs=[%s] aborted=%t", strings.Join(parts, ", "), s.Aborted)
	if s.Error != nil {
		out += fmt.Sprintf(" error=%s:%s", s.Error.Kind, quote(s.Error.Message, 100))
	}
	return out
}

func queued(q []sessionapi.QueuedInput) string {
	ids := make([]string, len(q))
	for i, in := range q {
		ids[i] = in.InputID
	}
	return "[" + strings.Join(ids, ", ") + "]"
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// userText is the text of a user message's content (a string or blocks).
func userText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []core.Content
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	return contentText(blocks)
}

func contentText(blocks []core.Content) string {
	var b strings.Builder
	for _, c := range blocks {
		if c.Type == core.ContentText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// resultText is the first line of a tool result and how many lines follow.
func (t *transcript) resultText(blocks []core.Content) string {
	text := strings.TrimRight(t.scrub(contentText(blocks)), "\n")
	first, rest, more := strings.Cut(text, "\n")
	out := quote(first, 80)
	if more {
		out += fmt.Sprintf(" (+%d lines)", strings.Count(rest, "\n")+1)
	}
	return out
}

var bare = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)

// args renders tool arguments as {key: value, ...}, keys sorted, long values cut.
func (t *transcript) args(args map[string]any) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		var v string
		switch x := args[k].(type) {
		case string:
			x = t.scrub(x)
			if bare.MatchString(x) {
				v = x
			} else {
				v = quote(x, 60)
			}
		case []any:
			v = fmt.Sprintf("[%d items]", len(x))
		case map[string]any:
			v = "{…}"
		default:
			b, _ := json.Marshal(x)
			v = string(b)
		}
		parts[i] = k + ": " + v
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// quote quotes s, cut to max runes: a real model's text can run long.
func quote(s string, max int) string {
	r := []rune(s)
	if len(r) > max {
		return strconv.Quote(string(r[:max])) + "…"
	}
	return strconv.Quote(s)
}
