package e2e_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// deltaText is n deltas' worth of text, size runes each, with no repetition that could hide
// a lost or duplicated delta.
func deltaText(n, size int) string {
	var b strings.Builder
	for i := range n {
		s := strconv.Itoa(i % 10000)
		b.WriteString(s + strings.Repeat(".", size-len(s)))
	}
	return b.String()
}

// newMock starts a mock OpenAI server with these responses.
func newMock(t *testing.T, rs ...mockopenai.Response) *mockopenai.Server {
	t.Helper()
	m := mockopenai.New(&mockopenai.Script{Responses: rs})
	t.Cleanup(m.Close)
	return m
}

// reassemble joins the text_delta events after the cursor position from.
func textDeltas(msgs []*message) (text string, deltas int) {
	var b strings.Builder
	for _, m := range msgs {
		if m.isEvent() && m.typ() == "message_update" {
			ame, _ := m.ev["assistantMessageEvent"].(map[string]any)
			if ame["type"] == "text_delta" {
				d, _ := ame["delta"].(string)
				b.WriteString(d)
				deltas++
			}
		}
	}
	return b.String(), deltas
}

// TestBackpressure stops reading stdout for 5 s during a 20,000-delta reply: the stall must
// reach the mock's HTTP writes; then everything arrives, gap-free, and the text reassembles.
//
// The mock's connections get a small kernel send buffer: with loopback's autotuned buffers
// (megabytes) the whole reply fits in the kernel and no write would ever block, whatever
// pi-rpc does. The bytes the mock managed to write during the pause are logged.
func TestBackpressure(t *testing.T) {
	want := deltaText(20_000, 4)
	// A replayed stream: the mock spends no time building chunks, so under the race
	// detector it still outruns what the kernel buffers while the client does not read.
	mock, written := newSmallBufferMock(t, mockopenai.Response{Faults: mockhttp.Faults{SSE: textSSE(want, 4)}})
	p := start(t, options{args: []string{"--provider", "openai", "--base-url", mock.URL()}, env: []string{"OPENAI_API_KEY=test"}})
	var pr inputResult
	p.result("prompt", map[string]any{"message": "stream a lot"}, &pr)
	p.event("message_update")
	p.gate.close()
	time.Sleep(5 * time.Second) // the test's subject: a client that stops reading
	duringPause := written.Load()
	p.gate.open()
	ev := p.event("agent_settled")
	if s := settledOf(t, ev); s.Error != nil || s.Aborted || s.outcome(pr.InputID) != "completed" {
		t.Fatalf("agent_settled = %s", ev)
	}
	// A blocked write is recorded when it completes, that is after reading resumed.
	blocked, maxWrite := mock.WritesBlocked(), mock.MaxWriteDuration()
	got, n := textDeltas(p.history())
	t.Logf("backpressure: mock writes blocked = %v (longest chunk write %v); mock had written %d of %d bytes when the 5 s pause ended; %d text deltas, %d events",
		blocked, maxWrite.Round(time.Millisecond), duringPause, written.Load(), n, ev.seq())
	// The stall is the robust evidence: the mock could not finish a reply it writes in well
	// under a second while the client did not read for 5 s. Whether one single write also
	// outlasted the threshold depends on how the kernel sizes pi-rpc's receive buffer, so
	// it is reported above rather than required.
	if duringPause >= written.Load() {
		t.Errorf("the mock wrote its whole reply (%d bytes) while the client was not reading: backpressure did not reach the HTTP stream", duringPause)
	}
	if got != want {
		t.Errorf("reassembled text: %d bytes, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
}

// newSmallBufferMock serves a mock on a loopback listener whose connections have a 16 KiB
// send buffer, and counts the bytes it writes.
func newSmallBufferMock(t *testing.T, rs ...mockopenai.Response) (*mockURL, *atomic.Int64) {
	t.Helper()
	h := mockopenai.NewHandler(&mockopenai.Script{Responses: rs})
	// A loopback write that takes 50 ms is waiting for the peer to read.
	h.BlockThreshold = 50 * time.Millisecond
	srv := httptest.NewUnstartedServer(h)
	n := new(atomic.Int64)
	srv.Listener = smallBufferListener{srv.Listener, n}
	srv.Start()
	t.Cleanup(func() {
		h.Release()
		srv.CloseClientConnections()
		srv.Close()
	})
	return &mockURL{Server: h, url: srv.URL + "/v1"}, n
}

// mockURL is a mock served by the test's own listener.
type mockURL struct {
	*mockopenai.Server
	url string
}

func (m *mockURL) URL() string { return m.url }

type smallBufferListener struct {
	net.Listener
	n *atomic.Int64
}

func (l smallBufferListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(16 << 10)
	}
	return countingConn{c, l.n}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.n.Add(int64(n))
	return n, err
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestReplySize: a 2,000-delta reply's message_update lines stay small (the partial message
// is not repeated) and the whole reply stays under 400 KB.
func TestReplySize(t *testing.T) {
	want := deltaText(2_000, 4)
	mock := newMock(t, mockopenai.Response{Text: want, ChunkSize: 4})
	p := start(t, options{mock: mock})
	resp := p.result("prompt", map[string]any{"message": "two thousand deltas"}, nil)
	ev := p.event("agent_settled")
	largestDelta, largestEnd := 0, 0
	var endType string
	for _, m := range p.history()[p.index(resp):] {
		if !m.isEvent() || m.typ() != "message_update" {
			continue
		}
		ame, _ := m.ev["assistantMessageEvent"].(map[string]any)
		typ, _ := ame["type"].(string)
		if strings.HasSuffix(typ, "_end") {
			// text_end carries the finished block's content (docs/events.md): it grows with
			// the text, by design, and is measured apart.
			if m.wire > largestEnd {
				largestEnd, endType = m.wire, typ
			}
			continue
		}
		largestDelta = max(largestDelta, m.wire)
	}
	total := ev.offset + int64(ev.wire) - resp.offset
	got, n := textDeltas(p.history())
	t.Logf("2,000-delta reply: %d text deltas; largest message_update (start/delta) %d bytes; %s %d bytes for %d bytes of text; whole reply %d bytes",
		n, largestDelta, endType, largestEnd, len(want), total)
	if n != 2000 || got != want {
		t.Errorf("got %d deltas, text equal = %v; want 2000 deltas of the scripted text", n, got == want)
	}
	if largestDelta >= 300 {
		t.Errorf("largest message_update is %d bytes, want < 300", largestDelta)
	}
	if largestEnd >= len(want)+300 {
		t.Errorf("%s is %d bytes, want < the text + 300", endType, largestEnd)
	}
	if total >= 400_000 {
		t.Errorf("whole reply is %d bytes, want < 400 KB", total)
	}
}

// TestStderrNeverRead: with --log-level debug and a client that never reads stderr, a
// 2,000-delta reply completes.
func TestStderrNeverRead(t *testing.T) {
	var deltas []string
	for i := range 2000 {
		deltas = append(deltas, fmt.Sprintf("d%d ", i))
	}
	script := fauxScript(reply{"content": []any{map[string]any{"type": "text", "deltas": deltas}}})
	p := start(t, options{faux: script, keepStderr: true, args: []string{"--log-level", "debug"}})
	// Enough requests and bad input to make debug logs of their own.
	for range 200 {
		p.send("{oops\n")
		p.notify("fly", nil)
	}
	var pr inputResult
	p.result("prompt", map[string]any{"message": "go"}, &pr)
	ev := p.event("agent_settled")
	if s := settledOf(t, ev); s.outcome(pr.InputID) != "completed" {
		t.Errorf("agent_settled = %s", ev)
	}
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}

// TestStdoutAndStdinClosedMidStream: the client closes both pipes during a long streamed
// reply; the server sees EPIPE as EOF and exits 0, not 141 (SIGPIPE).
func TestStdoutAndStdinClosedMidStream(t *testing.T) {
	mock := newMock(t, mockopenai.Response{Text: deltaText(20_000, 4), ChunkSize: 4})
	p := start(t, options{mock: mock})
	p.result("prompt", map[string]any{"message": "stream a lot"}, nil)
	p.event("message_update")
	p.mu.Lock()
	p.clientClosedStdout = true
	p.mu.Unlock()
	_ = p.stdout.Close()
	p.closeStdin()
	code := p.waitExit()
	if sig, ok := p.signaled(); ok {
		t.Fatalf("killed by %v, want exit 0", sig)
	}
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}

// TestAbortStalledProvider: abort while the provider's stream never ends (the mock stalls
// after two chunks): agent_end, then agent_settled{aborted:true}.
func TestAbortStalledProvider(t *testing.T) {
	mock := newMock(t, mockopenai.Response{Text: "never finishes this sentence", ChunkSize: 4, Faults: mockhttp.Faults{StallAfter: 2}})
	abortMidStream(t, start(t, options{mock: mock}), func() *mockhttp.Request { return mock.Requests()[0] })
}

// abortMidStream prompts p, aborts once the reply has started streaming (the provider
// stalls), and checks the abort: its response before agent_end, agent_settled{aborted:true}
// with the prompt aborted, and the provider's HTTP request (request, once it came) closed.
func abortMidStream(t *testing.T, p *proc, request func() *mockhttp.Request) {
	t.Helper()
	var pr inputResult
	p.result("prompt", map[string]any{"message": "go"}, &pr)
	p.event("message_update")
	abort := p.result("abort", nil, nil)
	end := p.event("agent_end")
	ev := p.event("agent_settled")
	p.before(abort, end, "abort response before agent_end")
	if s := settledOf(t, ev); !s.Aborted || s.outcome(pr.InputID) != "aborted" {
		t.Errorf("agent_settled = %s, want aborted", ev)
	}
	select {
	case <-request().Gone():
	case <-time.After(hangTimeout):
		t.Errorf("the aborted HTTP request was never closed")
	}
}

// TestAbortHungTool: abort while the bash tool runs a command that never returns, after
// the provider asked for it: agent_end and agent_settled{aborted:true} arrive, and the
// command's process does not survive.
func TestAbortHungTool(t *testing.T) {
	cwd := t.TempDir()
	command := `echo $$ > pid; echo started; exec sleep 1000`
	mock := newMock(t, mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_1", Name: "bash", Arguments: fmt.Sprintf(`{"command":%q}`, command)}}})
	p := start(t, options{mock: mock, cwd: cwd})
	var pr inputResult
	p.result("prompt", map[string]any{"message": "go"}, &pr)
	p.waitFor("the command's output", func(m *message) bool {
		if !m.isEvent() || m.typ() != "tool_execution_update" {
			return false
		}
		res, _ := m.ev["partialResult"].(map[string]any)
		content, _ := res["content"].([]any)
		for _, c := range content {
			if block, _ := c.(map[string]any); strings.Contains(fmt.Sprint(block["text"]), "started") {
				return true
			}
		}
		return false
	})
	data, err := os.ReadFile(filepath.Join(cwd, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	abort := p.result("abort", nil, nil)
	toolEnd := p.event("tool_execution_end")
	end := p.event("agent_end")
	ev := p.event("agent_settled")
	p.before(abort, toolEnd, "abort response before tool_execution_end")
	if toolEnd.ev["isError"] != true {
		t.Errorf("tool_execution_end = %s, want isError", toolEnd)
	}
	p.before(end, ev, "agent_end before agent_settled")
	if s := settledOf(t, ev); !s.Aborted || s.outcome(pr.InputID) != "aborted" {
		t.Errorf("agent_settled = %s, want aborted", ev)
	}
	// The process group got SIGTERM (and SIGKILL 50 ms later): wait for the process to be
	// gone (or a zombie), under the hang detector.
	deadline := time.Now().Add(hangTimeout)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("sleep 1000 (pid %d) survived the abort", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}

// alive reports whether pid is a running (not zombie) `sleep 1000`.
func alive(pid int) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || string(cmdline) != "sleep\x001000\x00" {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// textSSE is OpenAI's stream for a text reply cut into deltas of size bytes.
func textSSE(text string, size int) string {
	var b strings.Builder
	chunk := func(delta, finish string) {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-e2e","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4.1","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`+"\n\n", delta, finish)
	}
	chunk(`{"role":"assistant","content":""}`, "null")
	for i := 0; i < len(text); i += size {
		d, _ := json.Marshal(text[i:min(i+size, len(text))])
		chunk(`{"content":`+string(d)+`}`, "null")
	}
	chunk(`{}`, `"stop"`)
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}
