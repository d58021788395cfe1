package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
)

// memoryOpener opens sessions on in-memory stores with the faux provider and testkit.CatM1 (and the
// session's BeforeToolCall hook), as cmd/pi-rpc's opener does on files; the opened sessions
// get ids s1, s2, ...
func memoryOpener(t *testing.T, provider core.Provider) session.Opener {
	n := 0
	return func(req session.OpenRequest) (*session.Opened, error) {
		extra, ok := req.Extra.(OpenExtra)
		if !ok {
			t.Errorf("the opener got %T, want an OpenExtra", req.Extra)
		}
		n++
		store := testkit.MemoryStore(fmt.Sprintf("s%d", n), testkit.Epoch)
		sup := session.New(session.Config{Agent: core.Options{Provider: provider, Model: testkit.CatM1, BeforeToolCall: extra.BeforeToolCall}, Store: store, Sink: req.Sink, IDs: req.IDs, Logger: zerolog.Nop()})
		sup.StartSession()
		return &session.Opened{Supervisor: sup, Cwd: req.Cwd}, nil
	}
}

// acpClient is the client end of an ACP server over pipes.
type acpClient struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan message
}

// startServer starts a server on host and initializes it.
// catalogueHost is a session host on testkit's catalogue whose sessions (memoryOpener) run
// on the faux provider as cat/m1.
func catalogueHost(t *testing.T) *session.Host {
	provider := faux.New(faux.WithModel(testkit.CatM1))
	return session.NewHost(session.HostConfig{Models: testkit.Catalogue{Provider: provider}, Open: memoryOpener(t, provider)})
}

func startServer(t *testing.T, host *session.Host) *acpClient {
	t.Helper()
	c := startUninitialized(t, host)
	if m := c.call(0, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}); m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	return c
}

// startUninitialized starts a server on host; the test sends initialize, or not.
func startUninitialized(t *testing.T, host *session.Host) *acpClient {
	t.Helper()
	return startWith(t, Options{Host: host})
}

// startWith starts a server with opts (its pipes and logger set here), uninitialized.
func startWith(t *testing.T, opts Options) *acpClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	opts.In, opts.Out, opts.Logger = inR, outW, zerolog.Nop()
	srv := NewServer(opts)
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve()
	}()
	c := &acpClient{t: t, in: inW, lines: make(chan message, 256)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m message
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				c.lines <- m
			}
		}
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		<-served
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		_ = outR.Close()
	})
	return c
}

// call sends a request and returns its response, skipping the notifications before it.
func (c *acpClient) call(id int, method string, params any) message {
	c.t.Helper()
	m, _ := c.collect(id, method, params)
	return m
}

// collect sends a request and returns its response and the notifications before it.
func (c *acpClient) collect(id int, method string, params any) (message, []message) {
	c.t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
	var before []message
	for {
		select {
		case m := <-c.lines:
			if m.ID != nil && m.Method == "" && string(*m.ID) == fmt.Sprint(id) {
				return m, before
			}
			before = append(before, m)
		case <-time.After(30 * time.Second):
			c.t.Fatalf("no response to %s", method)
		}
	}
}

func (c *acpClient) newSession(id int) message {
	return c.call(id, "session/new", map[string]any{"cwd": testCwd, "mcpServers": []any{}})
}

func sessionID(t *testing.T, m message) string {
	t.Helper()
	var r sdk.NewSessionResponse
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil || r.SessionId == "" {
		t.Fatalf("session/new: %+v %s", m.Error, m.Result)
	}
	return string(r.SessionId)
}

// chunkText is the text of the last agent_message_chunk among updates.
func chunkText(updates []message) string {
	text := ""
	for _, m := range updates {
		var n sdk.SessionNotification
		if m.Method == "session/update" && json.Unmarshal(m.Params, &n) == nil && n.Update.AgentMessageChunk != nil && n.Update.AgentMessageChunk.Content.Text != nil {
			text = n.Update.AgentMessageChunk.Content.Text.Text
		}
	}
	return text
}

// modelOption is a session's model config option: its current value and its choices.
func modelOption(t *testing.T, result json.RawMessage) (string, []string) {
	t.Helper()
	cur, values, _, ok := configOption(t, result, "model")
	if !ok {
		t.Fatalf("no model option in %s", result)
	}
	return cur, values
}

// A session's model option and /model show the host's catalogue; switching goes through the
// host, its errors worded as ACP's invalid params or as the command's sentence.
func TestModelsFromHost(t *testing.T) {
	host := catalogueHost(t)
	c := startServer(t, host)
	opened := c.newSession(1)
	sid := sessionID(t, opened)
	cur, choices := modelOption(t, opened.Result)
	if cur != "cat/m1" || strings.Join(choices, ",") != "cat/m1,locked/m3,cat/m2" {
		t.Fatalf("model option %s of %v, want cat/m1 of the host's three", cur, choices)
	}
	set := func(id int, value string) message {
		return c.call(id, "session/set_config_option", map[string]any{"sessionId": sid, "configId": "model", "value": value})
	}
	if m := set(2, "cat/nope"); m.Error == nil || m.Error.Code != codeInvalidParams || m.Error.Message != "Invalid params: Model not found: nope" {
		t.Fatalf("unknown model: %+v", m.Error)
	}
	if m := set(3, "locked/m3"); m.Error == nil || m.Error.Message != "Invalid params: No API key for provider locked" {
		t.Fatalf("keyless model: %+v", m.Error)
	}
	m := set(4, "cat/m2")
	if cur, _ := modelOption(t, m.Result); m.Error != nil || cur != "cat/m2" {
		t.Fatalf("switch to cat/m2: %+v %s", m.Error, m.Result)
	}
	st, err := host.Find(sid)
	if err != nil || st.State().Model.ID != "m2" {
		t.Fatalf("the host's session %s: %v", sid, err)
	}
	_, updates := c.collect(5, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "/model"}}})
	text := chunkText(updates)
	if want := "The model is cat/m2. Switch with /model <provider/model>:\n- cat/m1\n- locked/m3\n- cat/m2"; text != want {
		t.Fatalf("/model says %q, want %q", text, want)
	}
	_, updates = c.collect(6, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "/model locked/m3"}}})
	text = chunkText(updates)
	if want := "Cannot switch the model: No API key for provider locked"; text != want {
		t.Fatalf("/model locked/m3 says %q, want %q", text, want)
	}
}

// The host's MaxSessions bounds the sessions of the connection with ACP's own error; the
// connection keeps serving, and a closed session makes room for another.
func TestMaxSessions(t *testing.T) {
	provider := faux.New(faux.WithModel(testkit.CatM1))
	host := session.NewHost(session.HostConfig{Models: testkit.Catalogue{Provider: provider}, Open: memoryOpener(t, provider), MaxSessions: 2})
	c := startServer(t, host)
	first := sessionID(t, c.newSession(1))
	sessionID(t, c.newSession(2))
	m := c.newSession(3)
	if m.Error == nil || m.Error.Code != codeInvalidRequest || m.Error.Message != "too many sessions open (at most 2, see --max-sessions)" {
		t.Fatalf("third session/new: %+v %s", m.Error, m.Result)
	}
	if got := len(host.Sessions()); got != 2 {
		t.Fatalf("the host has %d sessions, want 2", got)
	}
	if m := c.call(4, "session/set_mode", map[string]any{"sessionId": first, "modeId": "auto"}); m.Error != nil {
		t.Fatalf("set_mode after the refusal: %+v", m.Error)
	}
	if m := c.call(5, "session/close", map[string]any{"sessionId": first}); m.Error != nil {
		t.Fatalf("session/close: %+v", m.Error)
	}
	if _, err := host.Find(first); err == nil {
		t.Fatal("the closed session is still the host's")
	}
	sessionID(t, c.newSession(6))
}
