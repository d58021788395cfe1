package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// A session is opened only after initialize, whose client capabilities decide what its
// tools use: session/new and session/load before it are refused, saying so, and the
// connection serves on.
func TestInitializeFirst(t *testing.T) {
	host := catalogueHost(t)
	c := startUninitialized(t, host)
	for id, method := range map[int]string{1: "session/new", 2: "session/load"} {
		m := c.call(id, method, map[string]any{"cwd": testCwd, "sessionId": "s9", "mcpServers": []any{}})
		want := "initialize must come first: " + method + " was sent before initialize"
		if m.Error == nil || m.Error.Code != codeInvalidRequest || m.Error.Message != want {
			t.Errorf("%s before initialize: %+v %s, want %d %q", method, m.Error, m.Result, codeInvalidRequest, want)
		}
	}
	if len(host.Sessions()) != 0 {
		t.Fatalf("the host opened %d sessions before initialize", len(host.Sessions()))
	}
	if m := c.call(3, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}); m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	sessionID(t, c.newSession(4))
}

// session/cancel sent as a request (with an id) is answered with a null result, or with
// not-found for a session the connection does not have, instead of "Method not found".
func TestCancelAsRequest(t *testing.T) {
	host := catalogueHost(t)
	c := startServer(t, host)
	sid := sessionID(t, c.newSession(1))
	if m := c.call(2, "session/cancel", map[string]any{"sessionId": sid}); m.Error != nil || string(m.Result) != "null" {
		t.Fatalf("session/cancel request: %+v %s, want result null", m.Error, m.Result)
	}
	if m := c.call(3, "session/cancel", map[string]any{"sessionId": "nope"}); m.Error == nil || m.Error.Code != codeNotFound {
		t.Fatalf("session/cancel of an unknown session: %+v %s, want %d", m.Error, m.Result, codeNotFound)
	}
}

// A session/new read just before the input ends is opened and answered: Drain waits for
// the sessions being opened before Shutdown closes them.
func TestDrainAnswersOpening(t *testing.T) {
	host := catalogueHost(t)
	in := strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":` + testCwdJSON() + `,"mcpServers":[]}}` + "\n")
	outR, outW := io.Pipe()
	srv := NewServer(Options{In: in, Out: outW, Host: host, Logger: zerolog.Nop()})
	answers := make(chan map[string]message, 1)
	go func() {
		got := map[string]message{}
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m message
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.ID != nil && m.Method == "" {
				got[string(*m.ID)] = m
			}
		}
		answers <- got
	}()
	if err := srv.Serve(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv.Drain(ctx)
	srv.Shutdown(ctx)
	_ = outW.Close()
	got := <-answers
	if m, ok := got["1"]; !ok || m.Error != nil {
		t.Fatalf("session/new before the end of input: answered %v, error %+v", ok, m.Error)
	}
	sessionID(t, got["1"])
	if _, ok := got["0"]; !ok {
		t.Fatal("initialize was not answered")
	}
}
