package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// commandReply sends a prompt and returns the text of its agent_message_chunks, the kinds
// of its other updates and its stop reason.
func (p *acpProc) commandReply(id int, sid, text string) (string, []string, string) {
	p.t.Helper()
	p.request(id, "session/prompt", textPrompt(sid, text))
	var b strings.Builder
	var kinds []string
	for {
		m := p.read()
		if m.isResponse(id) {
			return b.String(), kinds, stopReason(p.t, m)
		}
		if s, k := m.update(); s == sid {
			if k == "agent_message_chunk" {
				b.WriteString(chunkText(m))
			} else {
				kinds = append(kinds, k)
			}
		}
	}
}

// The slash commands: announced after session/new, run by the agent (no model request),
// answered with a chunk and end_turn; an unknown /word is a prompt like any other.
func TestACPSlashCommands(t *testing.T) {
	big := strings.Repeat("lorem ipsum dolor sit amet ", 4000)
	mock := mockOf(
		mockopenai.Response{Text: "first answer"},
		mockopenai.Response{Text: "second answer"},
		mockopenai.Response{Text: "## Goal\nSummarised."},
		mockopenai.Response{Text: "the model saw it"},
	)
	defer mock.Close()
	p := startACP(t, mock)
	p.initialize()
	p.request(1, "session/new", map[string]any{"cwd": p.ws, "mcpServers": []any{}})
	sid := sessionIDOf(t, p.read())
	announced := p.read()
	var ac struct {
		Update struct {
			SessionUpdate     string `json:"sessionUpdate"`
			AvailableCommands []struct {
				Name  string `json:"name"`
				Input *struct {
					Hint string `json:"hint"`
				} `json:"input"`
			} `json:"availableCommands"`
		} `json:"update"`
	}
	if err := json.Unmarshal(announced.Params, &ac); err != nil || ac.Update.SessionUpdate != "available_commands_update" {
		t.Fatalf("after session/new: %s", announced.raw)
	}
	var names []string
	for _, c := range ac.Update.AvailableCommands {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "compact,name,session,fork,model,thinking" {
		t.Fatalf("commands %v", names)
	}

	text, _, reason := p.commandReply(2, sid, "/compact")
	if reason != "end_turn" || !strings.Contains(text, "Nothing to compact") {
		t.Fatalf("/compact on an empty session: %q %s", text, reason)
	}
	text, kinds, _ := p.commandReply(3, sid, "/name  Golden session ")
	if text != `Session named "Golden session".` || strings.Join(kinds, ",") != "session_info_update" {
		t.Fatalf("/name: %q %v", text, kinds)
	}
	if text, _, _ := p.commandReply(5, sid, "/thinking high"); !strings.Contains(text, "thinking level set to off") {
		t.Fatalf("/thinking on a model without reasoning: %q", text)
	}
	if text, _, _ := p.commandReply(6, sid, "/model nope/none"); !strings.HasPrefix(text, "Cannot switch the model") {
		t.Fatalf("/model of an unknown model: %q", text)
	}
	if len(mock.Requests()) != 0 {
		t.Fatalf("a command reached the model: %d requests", len(mock.Requests()))
	}

	p.commandReply(7, sid, "first "+big)
	p.commandReply(8, sid, "second "+big)
	// The file is written with the first message; it has the name.
	p.request(4, "session/list", map[string]any{"cwd": p.ws})
	if m := p.response(4); !strings.Contains(m.raw, `"title":"Golden session"`) {
		t.Fatalf("session/list after /name: %s", m.raw)
	}
	text, _, _ = p.commandReply(9, sid, "/session")
	for _, want := range []string{"Session " + sid, "Name: Golden session", "Model: openai/gpt-4.1", "Messages: 2 user, 2 assistant", "File: "} {
		if !strings.Contains(text, want) {
			t.Fatalf("/session lacks %q:\n%s", want, text)
		}
	}
	text, _, reason = p.commandReply(10, sid, "/compact keep the lorem")
	if reason != "end_turn" || !strings.HasPrefix(text, "Compacted the conversation") {
		t.Fatalf("/compact: %q %s", text, reason)
	}
	if n := len(mock.Requests()); n != 3 || !strings.Contains(string(mock.Requests()[2].Body), "keep the lorem") {
		t.Fatalf("the summary request (%d requests) lacks the instructions", n)
	}

	text, _, _ = p.commandReply(11, sid, "/fork")
	const marker = "into session "
	i := strings.Index(text, marker)
	if i < 0 {
		t.Fatalf("/fork: %q", text)
	}
	forked := strings.Fields(text[i+len(marker):])[0]
	if forked == sid {
		t.Fatal("/fork kept the session id")
	}

	if _, _, reason := p.commandReply(12, sid, "/unknown thing"); reason != "end_turn" {
		t.Fatal(reason)
	}
	if body := string(mock.Requests()[3].Body); !strings.Contains(body, "/unknown thing") {
		t.Fatalf("the unknown command did not reach the model: %s", body)
	}

	// The fork is a saved session with the conversation so far.
	p.request(13, "session/load", map[string]any{"sessionId": forked, "cwd": p.ws, "mcpServers": []any{}})
	var replayed strings.Builder
	for {
		m := p.read()
		if m.isResponse(13) {
			if m.Error != nil {
				t.Fatalf("loading the fork: %s", m.raw)
			}
			break
		}
		if s, k := m.update(); s == forked && k == "agent_message_chunk" {
			replayed.WriteString(chunkText(m))
		}
	}
	if !strings.Contains(replayed.String(), "second answer") || strings.Contains(replayed.String(), "the model saw it") {
		t.Fatalf("the fork's replay: %q", replayed.String())
	}
}

// session/cancel right after /compact stops the compaction: the command ends cancelled and
// the conversation is not compacted.
func TestACPCompactCancelled(t *testing.T) {
	big := strings.Repeat("lorem ipsum dolor sit amet ", 4000)
	mock := mockOf(
		mockopenai.Response{Text: "first answer"},
		mockopenai.Response{Text: "second answer"},
		mockopenai.Response{Text: "## Goal\nSummarised.", Faults: mockhttp.Faults{StallAfter: 1}},
		mockopenai.Response{Text: "## Goal\nSummarised.", Faults: mockhttp.Faults{StallAfter: 1}},
	)
	defer mock.Close()
	p, sid := startACPSession(t, mock)
	p.commandReply(2, sid, "first "+big)
	p.commandReply(3, sid, "second "+big)
	p.request(4, "session/prompt", textPrompt(sid, "/compact"))
	p.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
	m := p.until(func(m acpMsg) bool { return m.isResponse(4) || strings.Contains(m.raw, "Compact") })
	if chunkText(m) != "Compaction cancelled." {
		t.Fatalf("/compact then session/cancel: %s\n%s", m.raw, p.dump())
	}
	if r := stopReason(t, p.response(4)); r != "cancelled" {
		t.Fatalf("stopReason %q", r)
	}
	text, _, _ := p.commandReply(5, sid, "/session")
	if !strings.Contains(text, "Messages: 2 user, 2 assistant") {
		t.Fatalf("after the cancelled compaction:\n%s", text)
	}
	// $/cancel_request of the /compact prompt does the same.
	p.request(6, "session/prompt", textPrompt(sid, "/compact"))
	p.send(map[string]any{"jsonrpc": "2.0", "method": "$/cancel_request", "params": map[string]any{"requestId": 6}})
	if r := stopReason(t, p.response(6)); r != "cancelled" {
		t.Fatalf("$/cancel_request of /compact: %q\n%s", r, p.dump())
	}
}
