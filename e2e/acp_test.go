package e2e_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

func mockOf(rs ...mockopenai.Response) *mockopenai.Server {
	return mockopenai.New(&mockopenai.Script{Responses: rs})
}

// A plain turn: thinking and text stream as chunks, every update of the session comes
// after its session/new response and before its prompt's response, which says end_turn.
func TestACPPromptOrdering(t *testing.T) {
	mock := mockOf(mockopenai.Response{Reasoning: "let me think", Text: "Hello from the agent"})
	defer mock.Close()
	p := startACP(t, mock)
	p.request(0, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	init := p.response(0)
	var ir struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession        bool `json:"loadSession"`
			PromptCapabilities struct {
				Image, EmbeddedContext bool
			} `json:"promptCapabilities"`
			McpCapabilities struct{ HTTP, SSE bool } `json:"mcpCapabilities"`
		} `json:"agentCapabilities"`
		AgentInfo struct{ Name string } `json:"agentInfo"`
	}
	if err := json.Unmarshal(init.Result, &ir); err != nil || ir.ProtocolVersion != 1 || !ir.AgentCapabilities.LoadSession ||
		!ir.AgentCapabilities.PromptCapabilities.Image || !ir.AgentCapabilities.PromptCapabilities.EmbeddedContext ||
		!ir.AgentCapabilities.McpCapabilities.HTTP || !ir.AgentCapabilities.McpCapabilities.SSE || ir.AgentInfo.Name != "pi-rpc" {
		t.Fatalf("initialize: %s", init.raw)
	}
	// session/new and the prompt are pipelined: the prompt is handled after the session opens.
	p.request(1, "session/new", map[string]any{"cwd": p.ws, "mcpServers": []any{}})
	opened := p.read()
	if !opened.isResponse(1) {
		t.Fatalf("first line after session/new is not its response: %s", opened.raw)
	}
	var nr struct {
		SessionID string `json:"sessionId"`
		Modes     struct {
			CurrentModeID string `json:"currentModeId"`
		} `json:"modes"`
	}
	if err := json.Unmarshal(opened.Result, &nr); err != nil || nr.SessionID == "" || nr.Modes.CurrentModeID != "ask" {
		t.Fatalf("session/new: %s", opened.raw)
	}
	p.request(2, "session/prompt", map[string]any{"sessionId": nr.SessionID, "prompt": []any{
		map[string]any{"type": "text", "text": "hi"},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///x/notes.md", "text": "secret context"}},
		map[string]any{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
	}})
	var text, thought strings.Builder
	for {
		m := p.read()
		if m.isResponse(2) {
			if r := stopReason(t, m); r != "end_turn" {
				t.Fatalf("stopReason %q", r)
			}
			break
		}
		sid, kind := m.update()
		if sid != nr.SessionID {
			t.Fatalf("unexpected line during the turn: %s", m.raw)
		}
		var u struct {
			Update struct {
				Content struct{ Text string } `json:"content"`
			} `json:"update"`
		}
		_ = json.Unmarshal(m.Params, &u)
		switch kind {
		case "agent_message_chunk":
			text.WriteString(u.Update.Content.Text)
		case "agent_thought_chunk":
			thought.WriteString(u.Update.Content.Text)
		}
	}
	if text.String() != "Hello from the agent" || thought.String() != "let me think" {
		t.Fatalf("text %q thought %q", text.String(), thought.String())
	}
	body := string(mock.Requests()[0].Body)
	if !strings.Contains(body, "secret context") || !strings.Contains(body, "/x/notes.md") || !strings.Contains(body, "image/png") {
		t.Fatalf("the model did not see the embedded resource and image: %s", body)
	}
}

func editCall(id, path, old, new string) mockopenai.Response {
	args, _ := json.Marshal(map[string]any{"path": path, "edits": []any{map[string]any{"oldText": old, "newText": new}}})
	return mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: id, Name: "edit", Arguments: string(args)}}}
}

// editPermissionsMock plays the model in the ask-mode edit scenario, which
// TestACPEditPermissions runs and the edit_permissions golden records: four edits of a.txt
// ("one\ntwo\nthree\n"), each followed by a text answer. The second is to be refused, so the
// third edits "two" again; the fourth comes after allow_always.
func editPermissionsMock() *mockopenai.Server {
	return mockOf(
		editCall("c1", "a.txt", "one", "uno"), mockopenai.Response{Text: "edited"},
		editCall("c2", "a.txt", "two", "dos"), mockopenai.Response{Text: "refused"},
		editCall("c3", "a.txt", "two", "zwei"), mockopenai.Response{Text: "ok"},
		editCall("c4", "a.txt", "three", "drei"), mockopenai.Response{Text: "ok again"},
	)
}

// permissionRequest reads up to the next session/request_permission and returns its id and
// params.
func (p *acpProc) permissionRequest() (json.RawMessage, map[string]any) {
	p.t.Helper()
	m := p.until(func(m acpMsg) bool { return m.Method == "session/request_permission" })
	var params map[string]any
	_ = json.Unmarshal(m.Params, &params)
	return m.ID, params
}

func (p *acpProc) answerPermission(id json.RawMessage, option string) {
	outcome := map[string]any{"outcome": "cancelled"}
	if option != "" {
		outcome = map[string]any{"outcome": "selected", "optionId": option}
	}
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"outcome": outcome}})
}

// Ask mode: an edit is a permission request carrying the diff computed before it runs; allow
// writes it, reject leaves the file alone, "always" stops the asking for that tool.
func TestACPEditPermissions(t *testing.T) {
	mock := editPermissionsMock()
	defer mock.Close()
	p, sid := startACPSession(t, mock)
	file := writeFile(t, p.ws, "a.txt", "one\ntwo\nthree\n")

	p.request(2, "session/prompt", textPrompt(sid, "edit one"))
	id, params := p.permissionRequest()
	call := params["toolCall"].(map[string]any)
	diff := call["content"].([]any)[0].(map[string]any)
	if call["title"] != "Edit a.txt" || call["kind"] != "edit" || diff["type"] != "diff" || diff["path"] != file ||
		diff["oldText"] != "one\ntwo\nthree\n" || diff["newText"] != "uno\ntwo\nthree\n" {
		t.Fatalf("permission request: %v", params)
	}
	if got, _ := os.ReadFile(file); string(got) != "one\ntwo\nthree\n" {
		t.Fatalf("written before the answer: %q", got)
	}
	var kinds []string
	for _, o := range params["options"].([]any) {
		kinds = append(kinds, o.(map[string]any)["kind"].(string))
	}
	if strings.Join(kinds, ",") != "allow_once,allow_always,reject_once,reject_always" {
		t.Fatalf("options %v", kinds)
	}
	p.answerPermission(id, "allow_once")
	completed := p.until(func(m acpMsg) bool { return strings.Contains(m.raw, `"status":"completed"`) })
	if !strings.Contains(completed.raw, `"type":"diff"`) || !strings.Contains(completed.raw, `"oldText":"one\ntwo\nthree\n"`) {
		t.Fatalf("completed update without the diff: %s", completed.raw)
	}
	if r := stopReason(t, p.response(2)); r != "end_turn" {
		t.Fatal(r)
	}
	if got, _ := os.ReadFile(file); string(got) != "uno\ntwo\nthree\n" {
		t.Fatalf("after allow: %q", got)
	}

	p.request(3, "session/prompt", textPrompt(sid, "edit two"))
	id, _ = p.permissionRequest()
	p.answerPermission(id, "reject_once")
	p.until(func(m acpMsg) bool { return strings.Contains(m.raw, `"status":"failed"`) })
	stopReason(t, p.response(3))
	if got, _ := os.ReadFile(file); string(got) != "uno\ntwo\nthree\n" {
		t.Fatalf("after reject: %q", got)
	}

	p.request(4, "session/prompt", textPrompt(sid, "edit two again"))
	id, _ = p.permissionRequest()
	p.answerPermission(id, "allow_always")
	stopReason(t, p.response(4))
	// The next edit runs without a request.
	p.request(5, "session/prompt", textPrompt(sid, "edit three"))
	m := p.until(func(m acpMsg) bool { return m.isResponse(5) || m.Method == "session/request_permission" })
	if !m.isResponse(5) {
		t.Fatalf("asked again after allow_always: %s", m.raw)
	}
	if got, _ := os.ReadFile(file); string(got) != "uno\nzwei\ndrei\n" {
		t.Fatalf("after always: %q", got)
	}
}

// session/cancel while a permission request is pending: the request is withdrawn, nothing is
// written, and the prompt ends with stopReason cancelled after the withdrawal.
func TestACPCancelDuringPermission(t *testing.T) {
	mock := mockOf(editCall("c1", "a.txt", "one", "uno"))
	defer mock.Close()
	p, sid := startACPSession(t, mock)
	file := writeFile(t, p.ws, "a.txt", "one\n")
	p.request(2, "session/prompt", textPrompt(sid, "edit"))
	id, _ := p.permissionRequest()
	p.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
	withdrawn := false
	for {
		m := p.read()
		if m.Method == "$/cancel_request" && strings.Contains(string(m.Params), string(id)) {
			withdrawn = true
		}
		if m.isResponse(2) {
			if !withdrawn {
				t.Fatalf("prompt answered before the permission request was withdrawn:\n%s", p.dump())
			}
			if r := stopReason(t, m); r != "cancelled" {
				t.Fatalf("stopReason %q", r)
			}
			break
		}
	}
	// The client's late answer is ignored.
	p.answerPermission(id, "allow_once")
	if got, _ := os.ReadFile(file); string(got) != "one\n" {
		t.Fatalf("written after cancel: %q", got)
	}
}

// A second prompt while one runs is queued and each gets its own answer, in order, after
// every update of the turn.
func TestACPQueuedPrompt(t *testing.T) {
	mock := mockOf(mockopenai.Response{Text: "first answer here", Faults: mockhttp.Faults{StallAfter: 2}}, mockopenai.Response{Text: "second"})
	defer mock.Close()
	p, sid := startACPSession(t, mock)
	p.request(2, "session/prompt", textPrompt(sid, "one"))
	p.until(func(m acpMsg) bool { _, k := m.update(); return k == "agent_message_chunk" })
	p.request(3, "session/prompt", textPrompt(sid, "two"))
	// The follow-up is accepted before the stream resumes: it waits in the engine's queue.
	p.request(4, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "auto"})
	p.response(4)
	mock.Release()
	// The first prompt is answered when its own turn ends: every chunk of the first answer
	// before it, every chunk of the second after it.
	p.response(3)
	var before, after strings.Builder
	answered := 0
	for _, m := range p.wire {
		switch {
		case m.isResponse(2):
			if answered != 0 || stopReason(t, m) != "end_turn" {
				t.Fatalf("first answer: %s\n%s", m.raw, p.dump())
			}
			answered = 1
		case m.isResponse(3):
			if answered != 1 || stopReason(t, m) != "end_turn" {
				t.Fatalf("second answer: %s\n%s", m.raw, p.dump())
			}
			answered = 2
		case answered == 0:
			before.WriteString(chunkText(m))
		default:
			after.WriteString(chunkText(m))
		}
	}
	if before.String() != "first answer here" || after.String() != "second" {
		t.Fatalf("first turn's text %q, second's %q:\n%s", before.String(), after.String(), p.dump())
	}
	if n := len(mock.Requests()); n != 2 {
		t.Fatalf("%d model requests", n)
	}
}

// Two sessions of one connection run at the same time, each with its own updates and answer.
func TestACPTwoSessions(t *testing.T) {
	mock := mockOf(mockopenai.Response{Text: "alpha", Faults: mockhttp.Faults{StallAfter: 2}}, mockopenai.Response{Text: "beta"})
	defer mock.Close()
	p, a := startACPSession(t, mock)
	b := p.newSession(2)
	if a == b {
		t.Fatal("same session id twice")
	}
	p.request(3, "session/prompt", textPrompt(a, "a"))
	p.until(func(m acpMsg) bool { s, k := m.update(); return s == a && k == "agent_message_chunk" })
	// a is stalled mid-stream; b runs to its end meanwhile.
	p.request(4, "session/prompt", textPrompt(b, "b"))
	if r := stopReason(t, p.until(func(m acpMsg) bool { return m.isResponse(4) || m.isResponse(3) })); r != "end_turn" {
		t.Fatal(r)
	}
	mock.Release()
	p.response(3)
	for _, m := range p.wire {
		if s, _ := m.update(); s != "" && s != a && s != b {
			t.Fatalf("update for an unknown session: %s", m.raw)
		}
	}
}

// Length stops are max_tokens; a provider error that survives retries is a JSON-RPC error on
// the prompt with the provider's message.
func TestACPStopReasonsAndErrors(t *testing.T) {
	mock := mockOf(
		mockopenai.Response{Text: "cut", FinishReason: "length"},
		mockopenai.Response{Faults: mockhttp.Faults{Status: 400}, Error: &mockopenai.ErrorBody{Message: "the model refuses this request shape", Type: "invalid_request_error"}},
	)
	defer mock.Close()
	p, sid := startACPSession(t, mock)
	p.request(2, "session/prompt", textPrompt(sid, "x"))
	if r := stopReason(t, p.response(2)); r != "max_tokens" {
		t.Fatalf("stopReason %q", r)
	}
	p.request(3, "session/prompt", textPrompt(sid, "y"))
	m := p.response(3)
	if m.Error == nil || !strings.Contains(m.Error.Message, "the model refuses this request shape") {
		t.Fatalf("provider error: %s", m.raw)
	}
}

// Bad input of every kind is answered with the right error and the connection keeps serving.
func TestACPBadInput(t *testing.T) {
	mock := mockOf(mockopenai.Response{Text: "fine"})
	defer mock.Close()
	p := startACP(t, mock)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":`)
	if m := p.read(); m.Error == nil || m.Error.Code != -32700 || string(m.ID) != "null" {
		t.Fatalf("malformed JSON: %s", m.raw)
	}
	// A blank line is skipped; a batch (even after white space), a bare null and a message
	// with a field of the wrong type are invalid requests, described in the protocol's words.
	p.send(`   `)
	for _, line := range []string{` [{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, `null`, `{"jsonrpc":"2.0","id":1,"method":5}`} {
		p.send(line)
		m := p.read()
		if m.Error == nil || m.Error.Code != -32600 || string(m.ID) != "null" || strings.Contains(m.Error.Message, "Go ") || strings.Contains(m.Error.Message, "acp.") {
			t.Fatalf("%s: %s", line, m.raw)
		}
	}
	p.request(2, "session/teleport", map[string]any{})
	if m := p.response(2); m.Error == nil || m.Error.Code != -32601 {
		t.Fatalf("unknown method: %s", m.raw)
	}
	p.request(3, "session/prompt", textPrompt("no-such-session", "x"))
	if m := p.response(3); m.Error == nil || m.Error.Code != -32002 {
		t.Fatalf("unknown session: %s", m.raw)
	}
	p.request(4, "session/new", map[string]any{"cwd": "relative/dir", "mcpServers": []any{}})
	if m := p.response(4); m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, "absolute") {
		t.Fatalf("relative cwd: %s", m.raw)
	}
	p.request(5, "session/prompt", map[string]any{"sessionId": 7})
	if m := p.response(5); m.Error == nil || m.Error.Code != -32602 {
		t.Fatalf("bad params: %s", m.raw)
	}
	sid := p.newSession(6)
	p.request(7, "session/close", map[string]any{"sessionId": sid})
	if m := p.response(7); m.Error != nil {
		t.Fatalf("close: %s", m.raw)
	}
	p.request(8, "session/prompt", textPrompt(sid, "x"))
	if m := p.response(8); m.Error == nil || m.Error.Code != -32002 {
		t.Fatalf("prompt for a closed session: %s", m.raw)
	}
	// Still serving.
	sid = p.newSession(9)
	p.request(10, "session/prompt", textPrompt(sid, "x"))
	if r := stopReason(t, p.response(10)); r != "end_turn" {
		t.Fatal(r)
	}
}

// Cancel mid-stream, by session/cancel and by $/cancel_request for the prompt: both end the
// turn with stopReason cancelled after the chunks already streamed.
func TestACPCancelMidStream(t *testing.T) {
	mock := mockOf(
		mockopenai.Response{Text: "a long answer", Faults: mockhttp.Faults{StallAfter: 2}},
		mockopenai.Response{Text: "another long answer", Faults: mockhttp.Faults{StallAfter: 2}},
		mockopenai.Response{Text: "content filtered", FinishReason: "content_filter"},
	)
	defer mock.Close()
	p, sid := startACPSession(t, mock)
	p.request(2, "session/prompt", textPrompt(sid, "one"))
	p.until(func(m acpMsg) bool { _, k := m.update(); return k == "agent_message_chunk" })
	p.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
	if r := stopReason(t, p.response(2)); r != "cancelled" {
		t.Fatalf("session/cancel: %q", r)
	}
	p.request(3, "session/prompt", textPrompt(sid, "two"))
	p.until(func(m acpMsg) bool { _, k := m.update(); return k == "agent_message_chunk" })
	p.send(map[string]any{"jsonrpc": "2.0", "method": "$/cancel_request", "params": map[string]any{"requestId": 3}})
	if r := stopReason(t, p.response(3)); r != "cancelled" {
		t.Fatalf("$/cancel_request: %q", r)
	}
	p.request(4, "session/prompt", textPrompt(sid, "three"))
	if r := stopReason(t, p.response(4)); r != "refusal" {
		t.Fatalf("content filter: %q", r)
	}
}

// Without a key the provider cannot be called: initialize offers one auth method saying
// which variable to set, and a prompt fails with -32000.
func TestACPMissingKey(t *testing.T) {
	p := startACP(t, nil)
	p.request(0, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	m := p.response(0)
	var r struct {
		AuthMethods []struct {
			ID          string `json:"id"`
			Description string `json:"description"`
		} `json:"authMethods"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil || len(r.AuthMethods) != 1 || !strings.Contains(r.AuthMethods[0].Description, "OPENAI_API_KEY") {
		t.Fatalf("initialize without a key: %s", m.raw)
	}
	sid := p.newSession(1)
	p.request(2, "session/prompt", textPrompt(sid, "x"))
	if m := p.response(2); m.Error == nil || m.Error.Code != -32000 {
		t.Fatalf("prompt without a key: %s", m.raw)
	}
}

// chunkText is the text of an agent_message_chunk, "" for any other message.
func chunkText(m acpMsg) string {
	if _, k := m.update(); k != "agent_message_chunk" {
		return ""
	}
	var u struct {
		Update struct {
			Content struct{ Text string } `json:"content"`
		} `json:"update"`
	}
	_ = json.Unmarshal(m.Params, &u)
	return u.Update.Content.Text
}
