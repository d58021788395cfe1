package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// editorClient is an editor on the Go SDK's client side: it serves fs/* from its own
// buffers (which may differ from the disk) and terminal/* by really running the commands,
// records every request and update, and allows every tool.
type editorClient struct {
	goClient
	mu          sync.Mutex
	buffers     map[string]string
	reads       []string
	writes      []string
	permissions []sdk.RequestPermissionRequest
	methods     []string
	terms       map[string]*editorTerm
	reject      bool
	created     chan string
	killed      chan string
	released    chan string
}

type editorTerm struct {
	cmd  *exec.Cmd
	out  *testkit.Buffer
	done chan struct{}
}

// newEditorClient is an editor with no unsaved buffers and no terminals yet.
func newEditorClient() *editorClient {
	return &editorClient{buffers: map[string]string{}, terms: map[string]*editorTerm{},
		created: make(chan string, 8), killed: make(chan string, 8), released: make(chan string, 8)}
}

func (c *editorClient) note(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.methods = append(c.methods, method)
}

func (c *editorClient) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.permissions = append(c.permissions, p)
	reject := c.reject
	c.mu.Unlock()
	if reject {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected("reject_once")}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected("allow_once")}, nil
}

func (c *editorClient) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, p.Path)
	text, ok := c.buffers[p.Path]
	if !ok {
		return sdk.ReadTextFileResponse{}, &sdk.RequestError{Code: -32002, Message: "Resource not found: " + p.Path}
	}
	return sdk.ReadTextFileResponse{Content: text}, nil
}

func (c *editorClient) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, p.Path)
	c.buffers[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

func (c *editorClient) CreateTerminal(_ context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	c.note("create")
	cmd := exec.Command(p.Command, p.Args...)
	if p.Cwd != nil {
		cmd.Dir = *p.Cwd
	}
	t := &editorTerm{cmd: cmd, out: &testkit.Buffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = t.out, t.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return sdk.CreateTerminalResponse{}, err
	}
	go func() {
		_ = cmd.Wait()
		close(t.done)
	}()
	c.mu.Lock()
	id := "term-" + string(rune('0'+len(c.terms)))
	c.terms[id] = t
	c.mu.Unlock()
	c.created <- id
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (c *editorClient) term(id string) *editorTerm {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.terms[id]
}

func (t *editorTerm) status() *sdk.TerminalExitStatus {
	select {
	case <-t.done:
	default:
		return nil
	}
	ws := t.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return &sdk.TerminalExitStatus{Signal: sdk.Ptr(ws.Signal().String())}
	}
	return &sdk.TerminalExitStatus{ExitCode: sdk.Ptr(ws.ExitStatus())}
}

func (c *editorClient) WaitForTerminalExit(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	c.note("wait_for_exit")
	t := c.term(p.TerminalId)
	select {
	case <-t.done:
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	s := t.status()
	return sdk.WaitForTerminalExitResponse{ExitCode: s.ExitCode, Signal: s.Signal}, nil
}

func (c *editorClient) TerminalOutput(_ context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	c.note("output")
	t := c.term(p.TerminalId)
	return sdk.TerminalOutputResponse{Output: t.out.String(), ExitStatus: t.status()}, nil
}

func (c *editorClient) KillTerminal(_ context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	c.note("kill")
	t := c.term(p.TerminalId)
	_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	<-t.done
	c.killed <- p.TerminalId
	return sdk.KillTerminalResponse{}, nil
}

func (c *editorClient) ReleaseTerminal(_ context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	c.note("release")
	t := c.term(p.TerminalId)
	_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	c.released <- p.TerminalId
	return sdk.ReleaseTerminalResponse{}, nil
}

// dialEditor starts pi-rpc --protocol acp under a new editorClient (through the Go SDK),
// initializes it offering caps and opens a session in a new workspace; it returns the editor,
// the connection, the session's id, the workspace and what stops the process.
func dialEditor(t *testing.T, mock *mockopenai.Server, caps sdk.ClientCapabilities, args ...string) (*editorClient, *sdk.ClientSideConnection, sdk.SessionId, string, func()) {
	t.Helper()
	c := newEditorClient()
	home, ws := t.TempDir(), t.TempDir()
	conn, stop := spawnACP(t, mock, home, c, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return c, conn, sess.SessionId, ws, stop
}

// toolResultSeen is the text of the tool result for callID in the last request the model got.
func toolResultSeen(t *testing.T, mock *mockopenai.Server, callID string) string {
	t.Helper()
	reqs := mock.Requests()
	msgs, _ := reqs[len(reqs)-1].Decoded["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		if mm["role"] != "tool" || mm["tool_call_id"] != callID {
			continue
		}
		if s, ok := mm["content"].(string); ok {
			return s
		}
		b, _ := json.Marshal(mm["content"])
		return string(b)
	}
	t.Fatalf("no tool result for %s", callID)
	return ""
}

// updatesOf are the tool_call_updates of one call, in order.
func updatesOf(ns []sdk.SessionNotification, callID string) []*sdk.SessionToolCallUpdate {
	var out []*sdk.SessionToolCallUpdate
	for _, n := range ns {
		if u := n.Update.ToolCallUpdate; u != nil && string(u.ToolCallId) == callID {
			out = append(out, u)
		}
	}
	return out
}

// editorFsCalls are the model's turn in the fs-through-editor scenario, which
// TestACPFsThroughEditor plays with the Go SDK and fs.test.mjs with the TypeScript one: read
// a.txt, replace "unsaved" in it, write b.txt, read missing.txt, then answer "done".
func editorFsCalls() []mockopenai.Response {
	edit := `{"path":"a.txt","edits":[{"oldText":"unsaved","newText":"edited"}]}`
	return []mockopenai.Response{
		{ToolCalls: []mockopenai.ToolCall{{ID: "call_read", Name: "read", Arguments: `{"path":"a.txt"}`}}},
		{ToolCalls: []mockopenai.ToolCall{{ID: "call_edit", Name: "edit", Arguments: edit}}},
		{ToolCalls: []mockopenai.ToolCall{{ID: "call_write", Name: "write", Arguments: `{"path":"b.txt","content":"new file\n"}`}}},
		{ToolCalls: []mockopenai.ToolCall{{ID: "call_missing", Name: "read", Arguments: `{"path":"missing.txt"}`}}},
		{Text: "done"},
	}
}

// With fs/* offered, read sees the editor's unsaved buffer, edit changes the buffer (its
// permission diff and its result diff start from the buffer), write lands in the editor and
// not on disk, and the editor's error answer is the tool's error.
func TestACPFsThroughEditor(t *testing.T) {
	mock := mockOf(append(editorFsCalls(),
		mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_refused", Name: "write", Arguments: `{"path":"a.txt","content":"refused\n"}`}}},
		mockopenai.Response{Text: "refused"},
	)...)
	defer mock.Close()
	client, conn, sid, ws, stop := dialEditor(t, mock, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	defer stop()
	a, b := filepath.Join(ws, "a.txt"), filepath.Join(ws, "b.txt")
	if err := os.WriteFile(a, []byte("disk text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	client.mu.Lock()
	client.buffers[a] = "unsaved buffer text\n"
	client.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", res, err)
	}
	if got := toolResultSeen(t, mock, "call_read"); got != "unsaved buffer text\n" {
		t.Fatalf("the model saw %q", got)
	}
	client.mu.Lock()
	defer client.mu.Unlock()
	if client.buffers[a] != "edited buffer text\n" || client.buffers[b] != "new file\n" {
		t.Fatalf("buffers = %q", client.buffers)
	}
	if disk, _ := os.ReadFile(a); string(disk) != "disk text\n" {
		t.Fatalf("a.txt on disk = %q", disk)
	}
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Fatalf("b.txt reached the disk: %v", err)
	}
	for _, p := range append(append([]string{}, client.reads...), client.writes...) {
		if !filepath.IsAbs(p) {
			t.Fatalf("relative path %q", p)
		}
	}
	if len(client.permissions) != 2 {
		t.Fatalf("permissions = %+v", client.permissions)
	}
	d := client.permissions[0].ToolCall.Content[0].Diff
	if d == nil || d.Path != a || d.OldText == nil || *d.OldText != "unsaved buffer text\n" || d.NewText != "edited buffer text\n" {
		t.Fatalf("permission diff = %+v", client.permissions[0].ToolCall.Content)
	}
	ns := client.take()
	last := func(id string) *sdk.SessionToolCallUpdate { us := updatesOf(ns, id); return us[len(us)-1] }
	if u := last("call_edit"); *u.Status != sdk.ToolCallStatusCompleted || u.Content[0].Diff == nil || *u.Content[0].Diff.OldText != "unsaved buffer text\n" {
		t.Fatalf("edit update = %+v", u)
	}
	if u := last("call_write"); *u.Status != sdk.ToolCallStatusCompleted || u.Content[0].Diff == nil || u.Content[0].Diff.OldText != nil || u.Content[0].Diff.NewText != "new file\n" {
		t.Fatalf("write update = %+v", u)
	}
	if u := last("call_missing"); *u.Status != sdk.ToolCallStatusFailed {
		t.Fatalf("missing update = %+v", u)
	}
	want := "Could not read missing.txt: the editor answered: Resource not found: " + filepath.Join(ws, "missing.txt")
	if got := toolResultSeen(t, mock, "call_missing"); got != want {
		t.Fatalf("the model saw %q, want %q", got, want)
	}

	// A refused write never reaches the editor; its permission request showed the diff
	// from the buffer.
	client.reject = true
	writes := len(client.writes)
	client.mu.Unlock()
	res, err = conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock("again")}})
	client.mu.Lock()
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", res, err)
	}
	if len(client.writes) != writes || client.buffers[a] != "edited buffer text\n" {
		t.Fatalf("a refused write reached the editor: %v %q", client.writes, client.buffers[a])
	}
	d = client.permissions[len(client.permissions)-1].ToolCall.Content[0].Diff
	if d == nil || *d.OldText != "edited buffer text\n" || d.NewText != "refused\n" {
		t.Fatalf("permission diff = %+v", d)
	}
}

// An editor's answer larger than --max-message-bytes fails the read with the limit named, and
// the turn goes on (it used to wait for the dropped answer until a cancel).
func TestACPEditorAnswerTooLarge(t *testing.T) {
	mock := mockOf(
		mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_read", Name: "read", Arguments: `{"path":"big.txt"}`}}},
		mockopenai.Response{Text: "done"},
	)
	defer mock.Close()
	client, conn, sid, ws, stop := dialEditor(t, mock, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true}}, "--max-message-bytes", "4096")
	defer stop()
	big := filepath.Join(ws, "big.txt")
	if err := os.WriteFile(big, []byte("small on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	client.mu.Lock()
	client.buffers[big] = strings.Repeat("line of the unsaved buffer\n", 400)
	client.mu.Unlock()
	promptToEnd(t, conn, sid, "read it")
	if got := toolResultSeen(t, mock, "call_read"); !strings.Contains(got, "larger than --max-message-bytes (4096 bytes)") {
		t.Fatalf("the model saw %q", got)
	}
}

// With terminal offered, bash runs in the editor's terminal: the call shows it, the model
// gets the output and exit code as from a local run, and the terminal is released.
func TestACPTerminalThroughEditor(t *testing.T) {
	mock := mockOf(
		mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_sh", Name: "bash", Arguments: `{"command":"echo hi from $PWD; exit 3"}`}}},
		mockopenai.Response{Text: "done"},
	)
	defer mock.Close()
	client, conn, sid, ws, stop := dialEditor(t, mock, sdk.ClientCapabilities{Terminal: true})
	defer stop()
	promptToEnd(t, conn, sid, "run it")
	if got, want := toolResultSeen(t, mock, "call_sh"), "hi from "+ws+"\n\n\nCommand exited with code 3"; got != want {
		t.Fatalf("the model saw %q, want %q", got, want)
	}
	client.mu.Lock()
	methods := strings.Join(client.methods, ",")
	client.mu.Unlock()
	if methods != "create,wait_for_exit,output,release" {
		t.Fatalf("terminal requests = %s", methods)
	}
	us := updatesOf(client.take(), "call_sh")
	shown := false
	for _, u := range us {
		for _, c := range u.Content {
			shown = shown || (c.Terminal != nil && c.Terminal.TerminalId == "term-0")
		}
	}
	final := us[len(us)-1]
	if !shown || *final.Status != sdk.ToolCallStatusFailed || len(final.Content) != 1 || final.Content[0].Terminal == nil {
		t.Fatalf("updates = %+v", us)
	}
}

// session/cancel while the command runs in the editor's terminal: the terminal is killed
// and released, and the prompt ends cancelled.
func TestACPTerminalCancel(t *testing.T) {
	mock := mockOf(mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_sleep", Name: "bash", Arguments: `{"command":"sleep 30"}`}}})
	defer mock.Close()
	client, conn, sid, _, stop := dialEditor(t, mock, sdk.ClientCapabilities{Terminal: true})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	type result struct {
		res sdk.PromptResponse
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock("sleep")}})
		done <- result{res, err}
	}()
	var id string
	select {
	case id = <-client.created:
	case <-ctx.Done():
		t.Fatal("no terminal was created")
	}
	if err := conn.Cancel(ctx, sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.res.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt: %+v, %v", r.res, r.err)
	}
	for _, ch := range []chan string{client.killed, client.released} {
		select {
		case got := <-ch:
			if got != id {
				t.Fatalf("terminal %s, want %s", got, id)
			}
		case <-ctx.Done():
			t.Fatal("the terminal was not killed and released")
		}
	}
}

// An editor that offers fs/* and terminal/* but never answers them: session/cancel still
// ends each turn cancelled, after withdrawing the request ($/cancel_request), on the raw wire.
func TestACPSilentEditorCancel(t *testing.T) {
	mock := mockOf(
		mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_read", Name: "read", Arguments: `{"path":"a.txt"}`}}},
		mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_sh", Name: "bash", Arguments: `{"command":"true"}`}}},
	)
	defer mock.Close()
	p := startACP(t, mock, "--approval", "auto")
	p.request(0, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{
		"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true}})
	p.response(0)
	sid := p.newSession(1)
	for i, method := range []string{"fs/read_text_file", "terminal/create"} {
		id := 2 + i
		p.request(id, "session/prompt", textPrompt(sid, "go"))
		req := p.until(func(m acpMsg) bool { return m.Method == method })
		p.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
		withdrawn := false
		m := p.until(func(m acpMsg) bool {
			if m.Method == "$/cancel_request" {
				var c struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				_ = json.Unmarshal(m.Params, &c)
				withdrawn = withdrawn || string(c.RequestID) == string(req.ID)
			}
			return m.isResponse(id)
		})
		if got := stopReason(t, m); got != "cancelled" || !withdrawn {
			t.Fatalf("%s: stop %q, withdrawn %v\n%s", method, got, withdrawn, p.dump())
		}
	}
}

// The official ACP TypeScript SDK as an editor serving fs/* (e2e/acp-npm/fs.test.mjs, which
// validates every message with the SDK's schemas): the model sees the unsaved buffer, and
// the editor's error answer.
func TestACPTypeScriptSDKFs(t *testing.T) {
	needACPNpm(t)
	ws := t.TempDir()
	mock := mockOf(editorFsCalls()...)
	defer mock.Close()
	runACPNode(t, "fs.test.mjs", mock, ws)
	if got := toolResultSeen(t, mock, "call_read"); got != "unsaved text\n" {
		t.Fatalf("the model saw %q", got)
	}
	if got := toolResultSeen(t, mock, "call_missing"); !strings.HasPrefix(got, "Could not read missing.txt: the editor answered: ") {
		t.Fatalf("the model saw %q", got)
	}
}
