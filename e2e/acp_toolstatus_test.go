package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// statusTrail is what the wire said of one tool call, in order: each status a
// tool_call or tool_call_update set, and "request_permission:<status>" for a permission
// request about it.
func statusTrail(wire []acpMsg, callID string) []string {
	var trail []string
	for _, m := range wire {
		var p struct {
			Update struct {
				ToolCallID string `json:"toolCallId"`
				Status     string `json:"status"`
			} `json:"update"`
			ToolCall struct {
				ToolCallID string `json:"toolCallId"`
				Status     string `json:"status"`
			} `json:"toolCall"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			continue
		}
		switch {
		case m.Method == "session/update" && p.Update.ToolCallID == callID && p.Update.Status != "":
			trail = append(trail, p.Update.Status)
		case m.Method == "session/request_permission" && p.ToolCall.ToolCallID == callID:
			trail = append(trail, "request_permission:"+p.ToolCall.Status)
		}
	}
	return trail
}

func writeCall(id, path, content string) mockopenai.Response {
	return toolCall(id, "write", map[string]any{"path": path, "content": content})
}

// A call waiting for permission is pending (ACP: "awaiting approval") and goes in_progress
// only when it is let run; a refused one goes from pending to failed. Calls that need no
// approval (a read, anything in auto mode) go in_progress as they start.
func TestACPToolCallStatuses(t *testing.T) {
	mock := mockOf(
		writeCall("c1", "a.txt", "allowed\n"), mockopenai.Response{Text: "written"},
		writeCall("c2", "b.txt", "refused\n"), mockopenai.Response{Text: "refused"},
		toolCall("c3", "read", map[string]any{"path": "a.txt"}), mockopenai.Response{Text: "read"},
		writeCall("c4", "c.txt", "auto\n"), mockopenai.Response{Text: "written unasked"},
	)
	defer mock.Close()
	p, sid := startACPSession(t, mock)

	for i, option := range []string{"allow_once", "reject_once"} {
		p.request(2+i, "session/prompt", textPrompt(sid, "write"))
		id, _ := p.permissionRequest()
		p.answerPermission(id, option)
		if r := stopReason(t, p.response(2+i)); r != "end_turn" {
			t.Fatalf("prompt %d: stopReason %q", 2+i, r)
		}
	}
	if r := stopReason(t, p.prompt(4, sid, "read")); r != "end_turn" {
		t.Fatalf("read prompt: stopReason %q", r)
	}
	if m := p.call(5, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "auto"}); m.Error != nil {
		t.Fatalf("set_mode auto: %s", m.raw)
	}
	if r := stopReason(t, p.prompt(6, sid, "write")); r != "end_turn" {
		t.Fatalf("auto prompt: stopReason %q", r)
	}

	p.mu.Lock()
	wire := slices.Clone(p.wire)
	p.mu.Unlock()
	for _, c := range []struct {
		call string
		want []string
	}{
		{"c1", []string{"pending", "request_permission:pending", "in_progress", "completed"}},
		{"c2", []string{"pending", "request_permission:pending", "failed"}},
		{"c3", []string{"pending", "in_progress", "completed"}},
		{"c4", []string{"pending", "in_progress", "completed"}},
	} {
		if got := statusTrail(wire, c.call); !slices.Equal(got, c.want) {
			t.Errorf("%s: statuses %v, want %v", c.call, got, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(p.ws, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("the refused write reached the disk: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(p.ws, "a.txt")); err != nil || string(b) != "allowed\n" {
		t.Errorf("a.txt: %q %v", b, err)
	}
}
