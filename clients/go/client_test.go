package piclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/protocol"
)

// hangTimeout only detects hangs; nothing waits for it to pass.
const hangTimeout = 10 * time.Second

// fakeServer is the server end of a net.Pipe: the test reads what the client sent and
// writes what a server would.
type fakeServer struct {
	t    *testing.T
	conn net.Conn
	in   chan wireMessage
	wmu  sync.Mutex
}

func newPair(t *testing.T, opts Options) (*Client, *fakeServer) {
	t.Helper()
	cc, sc := net.Pipe()
	s := &fakeServer{t: t, conn: sc, in: make(chan wireMessage, 1024)}
	go func() {
		defer close(s.in)
		br := bufio.NewReader(sc)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			var m wireMessage
			if err := json.Unmarshal(line, &m); err != nil {
				t.Errorf("client sent invalid JSON %q: %v", line, err)
				return
			}
			if m.JSONRPC != "2.0" {
				t.Errorf("client sent %q without jsonrpc 2.0", line)
			}
			s.in <- m
		}
	}()
	c := New(cc, opts)
	t.Cleanup(func() {
		_ = sc.Close()
		_ = cc.Close()
		<-c.Done()
	})
	return c, s
}

// recv returns the next message from the client.
func (s *fakeServer) recv() wireMessage {
	s.t.Helper()
	select {
	case m, ok := <-s.in:
		if !ok {
			s.t.Fatal("client connection closed")
		}
		return m
	case <-time.After(hangTimeout):
		s.t.Fatal("no message from the client")
	}
	return wireMessage{}
}

// send writes one raw line to the client.
func (s *fakeServer) send(format string, args ...any) {
	s.t.Helper()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := fmt.Fprintf(s.conn, format+"\n", args...); err != nil {
		s.t.Errorf("server write: %v", err)
	}
}

func (s *fakeServer) event(seq int, typ, extra string) {
	s.send(`{"jsonrpc":"2.0","method":"event","params":{"type":%q,"seq":%d%s}}`, typ, seq, extra)
}

func hangCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hangTimeout)
	t.Cleanup(cancel)
	return ctx
}

func TestConcurrentCallsMatchIDs(t *testing.T) {
	c, s := newPair(t, Options{})
	ctx := hangCtx(t)
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got struct{ N int }
			if err := c.Call(ctx, "echo", map[string]int{"n": i}, &got); err != nil {
				errs <- fmt.Errorf("call %d: %w", i, err)
				return
			}
			if got.N != i {
				errs <- fmt.Errorf("call %d got result n=%d", i, got.N)
			}
		}()
	}
	// Collect every request first, then answer in reverse order, so matching by arrival
	// order would fail.
	reqs := make([]wireMessage, 0, n)
	seen := map[string]bool{}
	for range n {
		m := s.recv()
		if m.Method != "echo" {
			t.Fatalf("method = %q, want echo", m.Method)
		}
		if seen[string(m.ID)] {
			t.Fatalf("id %s used twice", m.ID)
		}
		seen[string(m.ID)] = true
		reqs = append(reqs, m)
	}
	for i := len(reqs) - 1; i >= 0; i-- {
		s.send(`{"jsonrpc":"2.0","id":%s,"result":%s}`, reqs[i].ID, reqs[i].Params)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCallResults(t *testing.T) {
	tests := []struct {
		name     string
		answer   string // the response after "id":N,
		wantErr  *Error
		wantKind string
		want     string // the decoded result, re-encoded
	}{
		{name: "result", answer: `"result":{"inputId":"in1","disposition":"started"}`, want: `{"inputId":"in1","disposition":"started"}`},
		{name: "null result", answer: `"result":null`, want: `{"inputId":"","disposition":""}`},
		{name: "application error", answer: `"error":{"code":-32010,"message":"Agent is busy","data":{"kind":"busy","suggest":["steer","followUp"]}}`,
			wantErr: &Error{Code: protocol.CodeBusy, Message: "Agent is busy"}, wantKind: "busy"},
		{name: "error without data", answer: `"error":{"code":-32601,"message":"Method not found: nope"}`,
			wantErr: &Error{Code: protocol.CodeMethodNotFound, Message: "Method not found: nope"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, s := newPair(t, Options{})
			go func() {
				m := s.recv()
				s.send(`{"jsonrpc":"2.0","id":%s,%s}`, m.ID, tc.answer)
			}()
			res, err := c.Prompt(hangCtx(t), protocol.PromptParams{Message: "hi"})
			if tc.wantErr != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("Prompt error = %v, want *Error", err)
				}
				if e.Code != tc.wantErr.Code || e.Message != tc.wantErr.Message || e.Kind() != tc.wantKind {
					t.Errorf("Prompt error = {%d %q kind %q}, want {%d %q kind %q}", e.Code, e.Message, e.Kind(), tc.wantErr.Code, tc.wantErr.Message, tc.wantKind)
				}
				return
			}
			if err != nil {
				t.Fatalf("Prompt: %v", err)
			}
			got, _ := json.Marshal(res)
			if string(got) != tc.want {
				t.Errorf("Prompt result = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestRequestShapes(t *testing.T) {
	tests := []struct {
		name       string
		call       func(context.Context, *Client) error
		wantMethod string
		wantParams string // "" for no params
		result     string
	}{
		{"initialize", func(ctx context.Context, c *Client) error {
			_, err := c.Initialize(ctx, protocol.InitializeParams{ProtocolVersion: 1, Capabilities: protocol.ClientCapabilities{Permissions: true}})
			return err
		}, "initialize", `{"protocolVersion":1,"capabilities":{"permissions":true}}`, `{"protocolVersion":1}`},
		{"steer", func(ctx context.Context, c *Client) error {
			_, err := c.Steer(ctx, protocol.QueueParams{Message: "stop", WhenIdle: "reject"})
			return err
		}, "steer", `{"message":"stop","whenIdle":"reject"}`, `{"inputId":"in2","disposition":"queued"}`},
		{"abort", func(ctx context.Context, c *Client) error { _, err := c.Abort(ctx); return err }, "abort", "", `{"aborted":true}`},
		{"waitSettled", func(ctx context.Context, c *Client) error { _, err := c.WaitSettled(ctx, "in1"); return err },
			"waitSettled", `{"inputId":"in1"}`, `{"inputs":[{"inputId":"in1","outcome":"completed"}],"aborted":false,"lastSeq":9}`},
		{"cancelInput", func(ctx context.Context, c *Client) error {
			return c.CancelInput(ctx, protocol.CancelInputParams{InputID: "in3"})
		}, "cancelInput", `{"inputId":"in3"}`, `{}`},
		{"getMessages", func(ctx context.Context, c *Client) error {
			r, err := c.GetMessages(ctx)
			if err == nil && len(r.Messages) != 2 {
				err = fmt.Errorf("got %d messages, want 2", len(r.Messages))
			}
			return err
		}, "getMessages", "", `{"messages":[{"role":"user","content":"hi","timestamp":1},{"role":"assistant","content":[{"type":"text","text":"hello"}],"api":"faux","provider":"faux","model":"faux-1","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}]}`},
		{"describe", func(ctx context.Context, c *Client) error {
			raw, err := c.Describe(ctx)
			if err == nil && string(raw) != `{"title":"x"}` {
				err = fmt.Errorf("describe = %s", raw)
			}
			return err
		}, "describe", "", `{"title":"x"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, s := newPair(t, Options{})
			done := make(chan error, 1)
			go func() { done <- tc.call(hangCtx(t), c) }()
			m := s.recv()
			if m.Method != tc.wantMethod || string(m.Params) != tc.wantParams {
				t.Errorf("request = %s %s, want %s %s", m.Method, m.Params, tc.wantMethod, tc.wantParams)
			}
			s.send(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, tc.result)
			if err := <-done; err != nil {
				t.Errorf("call: %v", err)
			}
		})
	}
}

func TestExitIsANotification(t *testing.T) {
	c, s := newPair(t, Options{})
	if err := c.Exit(); err != nil {
		t.Fatalf("Exit: %v", err)
	}
	m := s.recv()
	if m.Method != "exit" || m.ID != nil {
		t.Errorf("got method %q id %s, want exit without id", m.Method, m.ID)
	}
}

// TestEventsInOrderWithoutBlocking sends many events to a consumer that is not reading, then
// a response: the call must complete (the reader never waits for the consumer) and the
// events must come out complete and in order.
func TestEventsInOrderWithoutBlocking(t *testing.T) {
	c, s := newPair(t, Options{})
	ctx := hangCtx(t)
	const n = 2000
	go func() {
		m := s.recv()
		s.event(1, "agent_start", `,"runId":"r1","sessionId":"s-1"`)
		for i := 2; i < n; i++ {
			s.event(i, "message_update", `,"runId":"r1","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"x"}`)
		}
		s.event(n, "agent_settled", `,"inputs":[{"inputId":"in1","outcome":"completed"}],"aborted":false,"lastSeq":2000,"sessionId":"s-1"`)
		s.send(`{"jsonrpc":"2.0","id":%s,"result":{"inputs":[],"aborted":false,"lastSeq":2000}}`, m.ID)
	}()
	if _, err := c.WaitSettled(ctx, ""); err != nil {
		t.Fatalf("WaitSettled: %v", err)
	}
	var got []Event
	for ev, err := range c.Events(ctx) {
		if err != nil {
			t.Fatalf("Events: %v", err)
		}
		got = append(got, ev)
		if ev.Type == "agent_settled" {
			break
		}
	}
	if len(got) != n {
		t.Fatalf("got %d events, want %d", len(got), n)
	}
	for i, ev := range got {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
	}
	if first := got[0]; first.Type != "agent_start" || first.RunID != "r1" || first.SessionID != "s-1" {
		t.Errorf("first event = %+v, want agent_start r1 s-1", first)
	}
	var settled protocol.AgentSettledEvent
	if err := got[n-1].Decode(&settled); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if settled.LastSeq != n || len(settled.Inputs) != 1 || settled.Inputs[0].InputID != "in1" || settled.SessionID != "s-1" {
		t.Errorf("agent_settled = %+v", settled)
	}
}

func TestEventsEndAfterConnection(t *testing.T) {
	c, s := newPair(t, Options{})
	s.event(1, "queue_update", `,"steering":[],"followUp":[]`)
	_ = s.conn.Close()
	<-c.Done()
	ctx := hangCtx(t)
	ev, err := c.NextEvent(ctx)
	if err != nil || ev.Type != "queue_update" {
		t.Fatalf("NextEvent = %+v, %v; want the queued event", ev, err)
	}
	if _, err := c.NextEvent(ctx); !errors.Is(err, io.EOF) {
		t.Errorf("NextEvent after the end = %v, want io.EOF", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	c2, _ := newPair(t, Options{})
	if _, err := c2.NextEvent(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("NextEvent with a cancelled ctx = %v, want context.Canceled", err)
	}
}

func TestCancelSendsCancelRequest(t *testing.T) {
	c, s := newPair(t, Options{})
	ctx, cancel := context.WithCancel(hangCtx(t))
	done := make(chan error, 1)
	go func() {
		_, err := c.WaitSettled(ctx, "in1")
		done <- err
	}()
	req := s.recv()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitSettled after cancel = %v, want context.Canceled", err)
	}
	m := s.recv()
	if m.Method != "$/cancelRequest" || m.ID != nil {
		t.Fatalf("got %s id %s, want the $/cancelRequest notification", m.Method, m.ID)
	}
	var p struct{ ID json.RawMessage }
	if err := json.Unmarshal(m.Params, &p); err != nil || string(p.ID) != string(req.ID) {
		t.Errorf("$/cancelRequest params = %s, want id %s", m.Params, req.ID)
	}
	// The server's late answer is dropped, and the connection keeps working.
	s.send(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32800,"message":"Request cancelled"}}`, req.ID)
	go func() {
		m := s.recv()
		s.send(`{"jsonrpc":"2.0","id":%s,"result":{"aborted":false}}`, m.ID)
	}()
	if _, err := c.Abort(hangCtx(t)); err != nil {
		t.Errorf("Abort after a cancelled call: %v", err)
	}
}

func TestServerRequests(t *testing.T) {
	allowBash := func(_ context.Context, req PermissionRequest) PermissionDecision {
		if req.ToolName == "bash" && req.Args["command"] == "ls" && req.RequestID == "p1" && req.ToolCallID == "call_1" {
			return PermissionDecision{Decision: DecisionAllow}
		}
		return PermissionDecision{Decision: DecisionDeny, Reason: fmt.Sprintf("unexpected %+v", req)}
	}
	tests := []struct {
		name    string
		handler func(context.Context, PermissionRequest) PermissionDecision
		request string
		want    string
	}{
		{"allow", allowBash,
			`{"jsonrpc":"2.0","id":7,"method":"permission/request","params":{"requestId":"p1","toolCallId":"call_1","toolName":"bash","args":{"command":"ls"}}}`,
			`{"jsonrpc":"2.0","id":7,"result":{"decision":"allow"}}`},
		{"deny with reason and a string id", func(context.Context, PermissionRequest) PermissionDecision {
			return PermissionDecision{Decision: DecisionDeny, Reason: "not today"}
		},
			`{"jsonrpc":"2.0","id":"abc","method":"permission/request","params":{"requestId":"p2","toolCallId":"c","toolName":"write","args":{}}}`,
			`{"jsonrpc":"2.0","id":"abc","result":{"decision":"deny","reason":"not today"}}`},
		{"no handler", nil,
			`{"jsonrpc":"2.0","id":8,"method":"permission/request","params":{"requestId":"p1","toolCallId":"c","toolName":"bash","args":{}}}`,
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"Method not found: permission/request"}}`},
		{"other method", allowBash,
			`{"jsonrpc":"2.0","id":9,"method":"window/showMessage","params":{}}`,
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found: window/showMessage"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newPair(t, Options{OnPermission: tc.handler})
			s.send("%s", tc.request)
			m := s.recv()
			got, _ := json.Marshal(m)
			if string(got) != tc.want {
				t.Errorf("response = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestPermissionWithdrawn: the server's $/cancelRequest cancels the handler's context.
func TestPermissionWithdrawn(t *testing.T) {
	started := make(chan struct{})
	_, s := newPair(t, Options{OnPermission: func(ctx context.Context, _ PermissionRequest) PermissionDecision {
		close(started)
		<-ctx.Done()
		return PermissionDecision{Decision: DecisionDeny, Reason: "withdrawn"}
	}})
	s.send(`{"jsonrpc":"2.0","id":3,"method":"permission/request","params":{"requestId":"p1","toolCallId":"c","toolName":"edit","args":{}}}`)
	<-started
	s.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}`)
	m := s.recv()
	if string(m.ID) != "3" || string(m.Result) != `{"decision":"deny","reason":"withdrawn"}` {
		t.Errorf("response = id %s result %s", m.ID, m.Result)
	}
}

func TestConnectionEnd(t *testing.T) {
	tests := []struct {
		name    string
		end     func(s *fakeServer)
		wantErr string
	}{
		{"server closes", func(s *fakeServer) { _ = s.conn.Close() }, "server closed the connection"},
		{"not JSON", func(s *fakeServer) { s.send("hello") }, "malformed message from server"},
		{"not JSON-RPC 2.0", func(s *fakeServer) { s.send(`{"id":1,"result":{}}`) }, `"jsonrpc" is not "2.0"`},
		{"event without type", func(s *fakeServer) { s.send(`{"jsonrpc":"2.0","method":"event","params":{"seq":1}}`) }, "event without a type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, s := newPair(t, Options{})
			done := make(chan error, 1)
			go func() {
				_, err := c.GetState(hangCtx(t))
				done <- err
			}()
			s.recv()
			tc.end(s)
			err := <-done
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("pending call error = %v, want one containing %q", err, tc.wantErr)
			}
			if _, later := c.GetState(hangCtx(t)); later == nil || later.Error() != err.Error() {
				t.Errorf("later call error = %v, want %v", later, err)
			}
			if c.Err() == nil {
				t.Error("Err() = nil after the end")
			}
		})
	}
}

func TestCloseWrappedStream(t *testing.T) {
	c, s := newPair(t, Options{})
	go func() {
		m := s.recv()
		if m.Method != "shutdown" {
			t.Errorf("first message = %s, want shutdown", m.Method)
		}
		s.send(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		if m := s.recv(); m.Method != "exit" {
			t.Errorf("second message = %s, want exit", m.Method)
		}
	}()
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := c.GetState(hangCtx(t)); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close = %v, want ErrClosed", err)
	}
}
