package e2e_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// acpProc is a pi-rpc --protocol acp process, spoken to with raw lines so the tests see the
// wire order exactly.
type acpProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan acpMsg
	mu    sync.Mutex
	wire  []acpMsg
	done  chan struct{}
	ws    string
	// stderr is everything the process wrote there, complete once done is closed.
	stderr testkit.Buffer
}

// acpMsg is one line of stdout, decoded.
type acpMsg struct {
	raw    string
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (m acpMsg) isResponse(id int) bool {
	return m.Method == "" && strings.TrimSpace(string(m.ID)) == fmt.Sprint(id)
}

// update is a session/update's sessionId and sessionUpdate kind, "" for other messages.
func (m acpMsg) update() (session, kind string) {
	if m.Method != "session/update" {
		return "", ""
	}
	var p struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			SessionUpdate string `json:"sessionUpdate"`
		} `json:"update"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.SessionID, p.Update.SessionUpdate
}

// inputLine is v as a line of input, without its newline: a string as it is (raw, possibly
// bad, input), anything else encoded as JSON.
func inputLine(t *testing.T, v any) []byte {
	t.Helper()
	if s, ok := v.(string); ok {
		return []byte(s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func startACP(t *testing.T, mock *mockopenai.Server, args ...string) *acpProc {
	t.Helper()
	return startACPIn(t, mock, t.TempDir(), t.TempDir(), args...)
}

// startACPIn starts the process with PI_RPC_HOME home and sessions in the workspace ws.
func startACPIn(t *testing.T, mock *mockopenai.Server, home, ws string, args ...string) *acpProc {
	t.Helper()
	all := []string{"--protocol", "acp"}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "PI_RPC_HOME=" + home}
	if mock != nil {
		all = append(all, "--provider", "openai", "--base-url", mock.URL(), "--model", "gpt-4.1")
		env = append(env, "OPENAI_API_KEY=test")
	}
	all = append(all, args...)
	cmd := exec.Command(binary, all...)
	cmd.Env = env
	cmd.Dir = home
	stdin, stdout := stdioPipes(t, cmd)
	p := &acpProc{t: t, cmd: cmd, stdin: stdin, lines: make(chan acpMsg, 4096), done: make(chan struct{}), ws: ws}
	cmd.Stderr = &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m acpMsg
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m.Method = "!not-json"
			}
			m.raw = sc.Text()
			p.lines <- m
		}
	}()
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// promptedSession runs a first process (home, ws and args as startACPIn's) through one
// prompt of text in a new session, and returns the session's id once that process has
// exited: a session on disk for a test of session/load.
func promptedSession(t *testing.T, mock *mockopenai.Server, home, ws, text string, args ...string) string {
	t.Helper()
	p := startACPIn(t, mock, home, ws, args...)
	p.initialize()
	sid := p.newSession(1)
	p.request(2, "session/prompt", textPrompt(sid, text))
	p.response(2)
	_ = p.stdin.Close()
	<-p.done
	return sid
}

// send writes one line (an object is encoded as JSON).
func (p *acpProc) send(v any) {
	p.t.Helper()
	if _, err := p.stdin.Write(append(inputLine(p.t, v), '\n')); err != nil {
		p.t.Fatal(err)
	}
}

func (p *acpProc) request(id int, method string, params any) {
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

// read returns the next line of stdout. The deadline only turns a hang into a failure.
func (p *acpProc) read() acpMsg {
	p.t.Helper()
	select {
	case m, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("stdout ended; wire so far:\n%s", p.dump())
		}
		if m.Method == "!not-json" {
			p.t.Fatalf("stdout line is not JSON: %s", m.raw)
		}
		p.mu.Lock()
		p.wire = append(p.wire, m)
		p.mu.Unlock()
		return m
	case <-time.After(60 * time.Second):
		p.t.Fatalf("no message within 60s; wire so far:\n%s", p.dump())
	}
	return acpMsg{}
}

func (p *acpProc) dump() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for _, m := range p.wire {
		b.WriteString(m.raw)
		b.WriteString("\n")
	}
	return b.String()
}

// until reads until pred holds and returns that message.
func (p *acpProc) until(pred func(acpMsg) bool) acpMsg {
	p.t.Helper()
	for {
		if m := p.read(); pred(m) {
			return m
		}
	}
}

// closeInput closes stdin, reads stdout to its end and waits for the process; it returns
// the exit code. The deadline only turns a hang into a failure.
func (p *acpProc) closeInput() int {
	p.t.Helper()
	_ = p.stdin.Close()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				select {
				case <-p.done:
				case <-deadline:
					p.t.Fatalf("no exit within 60s of the end of stdout")
				}
				return p.cmd.ProcessState.ExitCode()
			}
			p.mu.Lock()
			p.wire = append(p.wire, m)
			p.mu.Unlock()
		case <-deadline:
			p.t.Fatalf("stdout did not end within 60s of stdin; wire so far:\n%s", p.dump())
		}
	}
}

func (p *acpProc) response(id int) acpMsg {
	p.t.Helper()
	return p.until(func(m acpMsg) bool { return m.isResponse(id) })
}

// call sends a request and reads up to its response.
func (p *acpProc) call(id int, method string, params any) acpMsg {
	p.t.Helper()
	p.request(id, method, params)
	return p.response(id)
}

// prompt sends a text prompt and reads up to its response.
func (p *acpProc) prompt(id int, sid, text string) acpMsg {
	p.t.Helper()
	return p.call(id, "session/prompt", textPrompt(sid, text))
}

func (p *acpProc) initialize() {
	p.t.Helper()
	p.request(0, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	p.response(0)
}

// newSession opens a session in the process's workspace and returns its id.
func (p *acpProc) newSession(id int) string {
	p.t.Helper()
	p.request(id, "session/new", map[string]any{"cwd": p.ws, "mcpServers": []any{}})
	m := p.response(id)
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil || r.SessionID == "" {
		p.t.Fatalf("session/new: %s", m.raw)
	}
	return r.SessionID
}

// startACPSession starts the process (startACP), initializes it and opens a session with
// request id 1; it returns the process and the session's id.
func startACPSession(t *testing.T, mock *mockopenai.Server, args ...string) (*acpProc, string) {
	t.Helper()
	p := startACP(t, mock, args...)
	p.initialize()
	return p, p.newSession(1)
}

func textPrompt(sid, text string) map[string]any {
	return map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}
}

func stopReason(t *testing.T, m acpMsg) string {
	t.Helper()
	var r struct {
		StopReason string `json:"stopReason"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil {
		t.Fatalf("prompt response: %s", m.raw)
	}
	return r.StopReason
}
