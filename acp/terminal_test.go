package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/tools"
)

// fakePeer is the client end of a writer: it reads what the agent writes and answers each
// request with answer(method, params); a nil answer leaves the request unanswered.
type fakePeer struct {
	w      *writer
	mu     sync.Mutex
	seen   []string                    // methods of requests and notifications, in wire order
	params []string                    // their params, in the same order
	ids    map[string]*json.RawMessage // the last request id of each method
	lines  chan string
	answer func(method string, params json.RawMessage) any
}

func newFakePeer(t *testing.T, answer func(string, json.RawMessage) any) (*fakePeer, *acpSession) {
	t.Helper()
	pr, pw := io.Pipe()
	p := &fakePeer{w: newWriter(pw, 1<<20), lines: make(chan string, 64), answer: answer, ids: map[string]*json.RawMessage{}}
	t.Cleanup(func() { _ = pr.Close(); p.w.close(time.Second) })
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var m message
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			p.mu.Lock()
			p.seen = append(p.seen, m.Method)
			p.params = append(p.params, string(m.Params))
			if m.ID != nil {
				p.ids[m.Method] = m.ID
			}
			p.mu.Unlock()
			p.lines <- m.Method
			if m.ID == nil || m.Method == "" {
				continue
			}
			res := p.answer(m.Method, m.Params)
			if e, ok := res.(*sdk.RequestError); ok {
				p.w.answer(&message{ID: m.ID, Error: e})
			} else if res != nil {
				b, _ := json.Marshal(res)
				p.w.answer(&message{ID: m.ID, Result: b})
			}
		}
	}()
	st := &acpSession{id: "s1", cwd: "/w", calls: map[string]*toolCall{"call_1": {name: "bash"}}, rejected: map[string]bool{}}
	return p, st
}

// waitFor blocks until the agent has written a message of method.
func (p *fakePeer) waitFor(t *testing.T, method string) {
	t.Helper()
	for {
		select {
		case m := <-p.lines:
			if m == method {
				return
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no %s", method)
		}
	}
}

func (p *fakePeer) methods() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.seen, ",")
}

// A command that outlives its timeout: wait_for_exit is withdrawn, the terminal killed, its
// output read and the terminal released; the call showed the terminal.
func TestTerminalTimeoutKills(t *testing.T) {
	peer, st := newFakePeer(t, func(method string, _ json.RawMessage) any {
		switch method {
		case "terminal/create":
			return map[string]any{"terminalId": "t1"}
		case "terminal/wait_for_exit":
			return nil // the command runs on
		case "terminal/output":
			return map[string]any{"output": "partial\n", "truncated": true}
		}
		return map[string]any{}
	})
	clock := testkit.NewClock()
	r := &terminalRunner{w: peer.w, st: st}
	done := make(chan tools.CommandOutput, 1)
	go func() {
		out, err := r.RunCommand(context.Background(), tools.Command{ToolCallID: "call_1", Shell: "/bin/bash", Args: []string{"-c", "sleep 9"}, Dir: "/w",
			Env: []string{"A=b=c"}, Timeout: time.Second, Clock: clock, OutputLimit: 100})
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	peer.waitFor(t, "terminal/wait_for_exit")
	clock.Fire()
	out := <-done
	if !out.TimedOut || out.Cancelled || out.ExitCode != nil || out.Output != "partial\n" || !out.Truncated {
		t.Fatalf("out = %+v", out)
	}
	peer.waitFor(t, "terminal/release")
	want := "terminal/create,session/update,terminal/wait_for_exit,$/cancel_request,terminal/kill,terminal/output,terminal/release"
	if got := peer.methods(); got != want {
		t.Fatalf("wire = %s", got)
	}
	if st.calls["call_1"].terminal != "t1" {
		t.Fatalf("call = %+v", st.calls["call_1"])
	}
}

// An exit by itself: no kill; a signal is no exit code.
func TestTerminalExit(t *testing.T) {
	for _, tc := range []struct {
		exit map[string]any
		code *int
	}{
		{map[string]any{"exitCode": 2}, ptr(2)},
		{map[string]any{"exitCode": nil, "signal": "SIGSEGV"}, nil},
	} {
		var create json.RawMessage
		peer, st := newFakePeer(t, func(method string, params json.RawMessage) any {
			switch method {
			case "terminal/create":
				create = params
				return map[string]any{"terminalId": "t1"}
			case "terminal/wait_for_exit":
				return tc.exit
			case "terminal/output":
				return map[string]any{"output": "out", "truncated": false}
			}
			return map[string]any{}
		})
		r := &terminalRunner{w: peer.w, st: st}
		out, err := r.RunCommand(context.Background(), tools.Command{ToolCallID: "call_1", Shell: "/bin/bash", Args: []string{"-c", "x"}, Dir: "/w", Env: []string{"A=b=c"}, OutputLimit: 100})
		if err != nil || out.TimedOut || out.Cancelled || out.Output != "out" || (out.ExitCode == nil) != (tc.code == nil) || (tc.code != nil && *out.ExitCode != *tc.code) {
			t.Fatalf("out = %+v, %v", out, err)
		}
		peer.waitFor(t, "terminal/release")
		if got := peer.methods(); got != "terminal/create,session/update,terminal/wait_for_exit,terminal/output,terminal/release" {
			t.Fatalf("wire = %s", got)
		}
		if string(create) != `{"args":["-c","x"],"command":"/bin/bash","cwd":"/w","env":[{"name":"A","value":"b=c"}],"outputByteLimit":100,"sessionId":"s1"}` {
			t.Fatalf("create = %s", create)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// cancelWhileCreating runs a command and cancels it while its terminal/create is unanswered:
// the command ends cancelled and the request is withdrawn.
func cancelWhileCreating(t *testing.T, peer *fakePeer, st *acpSession) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tools.CommandOutput, 1)
	go func() {
		out, _ := (&terminalRunner{w: peer.w, st: st}).RunCommand(ctx, tools.Command{ToolCallID: "call_1", Shell: "/bin/sh", Args: []string{"-c", "x"}, Dir: "/w"})
		done <- out
	}()
	peer.waitFor(t, "terminal/create")
	cancel()
	if out := <-done; !out.Cancelled {
		t.Fatalf("out = %+v", out)
	}
	peer.waitFor(t, "$/cancel_request")
}

// A client that never answers: an abort still ends the command at once (cancelled), and
// the same holds for a file read.
func TestSilentClientAbort(t *testing.T) {
	peer, st := newFakePeer(t, func(string, json.RawMessage) any { return nil })
	cancelWhileCreating(t, peer, st)

	ctx, cancel := context.WithCancel(context.Background())
	files := &clientFiles{w: peer.w, st: st, canRead: true, canWrite: true}
	errc := make(chan error, 1)
	go func() {
		_, err := files.ReadText(ctx, tools.TextFile{ToolCallID: "call_1", Path: "/w/a"})
		errc <- err
	}()
	peer.waitFor(t, "fs/read_text_file")
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("an aborted read succeeded")
	}
	peer.waitFor(t, "$/cancel_request")
}

// An editor that answers terminal/create after the request was withdrawn has started a
// command nobody waits for: it is killed and released.
func TestTerminalCreatedAfterWithdrawalIsReleased(t *testing.T) {
	peer, st := newFakePeer(t, func(method string, _ json.RawMessage) any {
		if method == "terminal/create" {
			return nil // answered late, below
		}
		return struct{}{}
	})
	cancelWhileCreating(t, peer, st)
	peer.mu.Lock()
	id := peer.ids["terminal/create"]
	peer.mu.Unlock()
	if !peer.w.answer(&message{ID: id, Result: json.RawMessage(`{"terminalId":"late-1"}`)}) {
		t.Fatal("the late answer was not taken")
	}
	peer.waitFor(t, "terminal/kill")
	peer.waitFor(t, "terminal/release")
	peer.mu.Lock()
	defer peer.mu.Unlock()
	if got := strings.Join(peer.params[len(peer.params)-2:], " "); strings.Count(got, `"terminalId":"late-1"`) != 2 {
		t.Fatalf("kill and release were for %s", got)
	}
	// A second answer to the same id is a stray.
	if peer.w.answer(&message{ID: id, Result: json.RawMessage(`{"terminalId":"late-1"}`)}) {
		t.Fatal("a second answer was taken")
	}
}

// Through the client's files, an edit's diff is the change really made: from the text the
// call read; a write's from the buffer just before it (none: a new file).
func TestClientFilesRecordTheChange(t *testing.T) {
	peer, st := newFakePeer(t, func(method string, params json.RawMessage) any {
		if method == "fs/read_text_file" {
			if strings.Contains(string(params), "/w/new") {
				return reqError(codeNotFound, "no such file", nil)
			}
			return map[string]any{"content": "old text"}
		}
		return map[string]any{}
	})
	files := &clientFiles{w: peer.w, st: st, canRead: true, canWrite: true}
	ctx := context.Background()
	if _, err := files.ReadText(ctx, tools.TextFile{ToolCallID: "call_1", Path: "/w/a"}); err != nil {
		t.Fatal(err)
	}
	if err := files.WriteText(ctx, tools.TextFile{ToolCallID: "call_1", Path: "/w/a"}, "new text"); err != nil {
		t.Fatal(err)
	}
	if p := st.calls["call_1"].preview; p == nil || *p != (tools.Preview{Path: "/w/a", OldText: "old text", NewText: "new text", Exists: true}) {
		t.Fatalf("edit preview = %+v", p)
	}
	if got := peer.methods(); got != "fs/read_text_file,fs/write_text_file" {
		t.Fatalf("wire = %s", got)
	}
	st.calls["call_2"] = &toolCall{name: "write"}
	if err := files.WriteText(ctx, tools.TextFile{ToolCallID: "call_2", Path: "/w/b"}, "b"); err != nil {
		t.Fatal(err)
	}
	if p := st.calls["call_2"].preview; p == nil || *p != (tools.Preview{Path: "/w/b", OldText: "old text", NewText: "b", Exists: true}) {
		t.Fatalf("write preview = %+v", p)
	}
	st.calls["call_3"] = &toolCall{name: "write"}
	if err := files.WriteText(ctx, tools.TextFile{ToolCallID: "call_3", Path: "/w/new"}, "n"); err != nil {
		t.Fatal(err)
	}
	if p := st.calls["call_3"].preview; p == nil || *p != (tools.Preview{Path: "/w/new", NewText: "n"}) {
		t.Fatalf("new file preview = %+v", p)
	}
	// The client's error answer is the tool's error.
	if _, err := files.ReadText(ctx, tools.TextFile{ToolCallID: "call_3", Path: "/w/new"}); err == nil || err.Error() != "no such file" {
		t.Fatalf("read error = %v", err)
	}
}
