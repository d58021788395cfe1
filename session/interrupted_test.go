package session_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// Lines of a session whose process was killed while tools ran: the assistant's tool calls
// were written, some or none of their results.
const (
	killedHeader    = `{"type":"session","version":3,"id":"0196a1b2-0000-7000-8000-000000000001","timestamp":"2026-11-30T00:51:10.000Z","cwd":"/w"}`
	killedUser      = `{"type":"message","id":"11111111","parentId":null,"timestamp":"2026-11-30T00:51:15.000Z","message":{"role":"user","content":[{"type":"text","text":"check the notes"}],"timestamp":1795999875000}}`
	killedTwoCalls  = `{"type":"message","id":"22222222","parentId":"11111111","timestamp":"2026-11-30T00:51:16.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_read_1","name":"read","arguments":{"path":"notes.txt"}},{"type":"toolCall","id":"call_bash_2","name":"bash","arguments":{"command":"make test"}}],"api":"faux","provider":"faux","model":"faux-1","usage":{"input":120,"output":12,"cacheRead":0,"cacheWrite":0,"totalTokens":132,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1795999876000}}`
	killedOneResult = `{"type":"message","id":"33333333","parentId":"22222222","timestamp":"2026-11-30T00:51:16.200Z","message":{"role":"toolResult","toolCallId":"call_read_1","toolName":"read","content":[{"type":"text","text":"buy milk\n"}],"isError":false,"timestamp":1795999876200}}`
	killedOneCall   = `{"type":"message","id":"22222222","parentId":"11111111","timestamp":"2026-11-30T00:51:16.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Running the tests."},{"type":"toolCall","id":"call_bash_2","name":"bash","arguments":{"command":"make test"}}],"api":"faux","provider":"faux","model":"faux-1","usage":{"input":120,"output":12,"cacheRead":0,"cacheWrite":0,"totalTokens":132,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1795999876000}}`
)

const interruptedText = "Tool call was interrupted: no result was recorded (the process ended before the tool finished)"

// continue after kill -9 mid-tool: each tool call without a result gets an error result,
// recorded as an entry, and the model is called with them.
func TestContinueAfterKilledMidTool(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		missing []string
		sent    []string
	}{
		{
			"two calls, one result", []string{killedHeader, killedUser, killedTwoCalls, killedOneResult},
			[]string{"call_bash_2"},
			[]string{"user", "assistant", "toolResult:call_read_1:buy milk\n", "toolResult:call_bash_2:error:" + interruptedText},
		},
		{
			"one call, no result", []string{killedHeader, killedUser, killedOneCall},
			[]string{"call_bash_2"},
			[]string{"user", "assistant", "toolResult:call_bash_2:error:" + interruptedText},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The file's directory first, so that its cleanup runs after the harness's
			// closes the session (Windows does not delete an open file).
			path := filepath.Join(t.TempDir(), "killed.jsonl")
			h, _ := fileHarness(t, textReplies("The read worked; the test run was cut off, so I will run it again.")...)
			orig := strings.Join(tt.lines, "\n") + "\n"
			if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
				t.Fatal(err)
			}
			ref, err := h.sup.OpenSession(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(ref.Warnings) != 0 {
				t.Fatalf("warnings %v", ref.Warnings)
			}
			n := len(h.sink.outline())
			var a sessionapi.Accepted
			if err := keep(&a)(h.sup.Continue()); err != nil {
				t.Fatalf("Continue: %v", err)
			}
			st := h.settle()
			if st.Error != nil {
				t.Fatalf("settled with %+v", st.Error)
			}
			want := []string{"agent_start"}
			for range tt.missing {
				want = append(want, "message_start:toolResult", "message_end:toolResult")
			}
			want = append(want, "message_start:assistant", "message_end:assistant", "agent_end", "agent_settled["+a.InputID+"=completed]")
			eq(t, "events", h.sink.outline()[n:], want)

			reqs := h.model.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d model requests, want 1", len(reqs))
			}
			eq(t, "sent", describe(reqs[0].Messages), tt.sent)

			// The file holds its old lines, then the results and the reply, chained.
			after, _ := os.ReadFile(path)
			if !strings.HasPrefix(string(after), orig) {
				t.Fatal("the file's lines changed")
			}
			l, _ := session.ReadFile(path)
			if len(l.Warnings) != 0 {
				t.Fatalf("read back: warnings %v", l.Warnings)
			}
			// (Opening the file records its thinking level first; only messages matter here.)
			var added []*session.Entry
			for _, e := range l.Entries[len(tt.lines)-1:] {
				if e.Type == session.EntryMessage {
					added = append(added, e)
				}
			}
			if len(added) != len(tt.missing)+1 {
				t.Fatalf("%d entries appended, want %d", len(added), len(tt.missing)+1)
			}
			for i, id := range tt.missing {
				tr, ok := added[i].Message.(*core.ToolResultMessage)
				if !ok || tr.ToolCallID != id || !tr.IsError || tr.ToolName != "bash" || core.TextOf(tr.Content) != interruptedText {
					t.Fatalf("appended entry %d = %+v", i, added[i].Message)
				}
			}
			for i, e := range l.Entries[1:] {
				if e.ParentID != l.Entries[i].ID {
					t.Fatalf("entry %s has parent %s, want %s", e.ID, e.ParentID, l.Entries[i].ID)
				}
			}
			h.check()
		})
	}
}

func describe(ms []core.Message) []string {
	var out []string
	for _, m := range ms {
		switch m := m.(type) {
		case *core.ToolResultMessage:
			d := "toolResult:" + m.ToolCallID + ":"
			if m.IsError {
				d += "error:"
			}
			out = append(out, d+core.TextOf(m.Content))
		default:
			out = append(out, string(m.Role()))
		}
	}
	return out
}
