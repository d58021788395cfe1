package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/tools/mcp/internal/testserver"
)

func TestStdioToolsAndResults(t *testing.T) {
	h, err := connect(t, Options{}, stdioServer("test"))
	if err != nil {
		t.Fatal(err)
	}
	st := h.status("test")
	if st.State != StateConnected || st.Transport != TransportStdio || st.ServerName != "pi-rpc-testserver" {
		t.Fatalf("status = %+v", st)
	}
	var names []string
	for _, tool := range h.set.Tools() {
		names = append(names, tool.Info().Name)
	}
	want := "mcp__test__add_tool mcp__test__big mcp__test__crash mcp__test__echo mcp__test__fail mcp__test__garbage mcp__test__hang mcp__test__image mcp__test__structured mcp__test__write_note"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("tools = %s\nwant    %s", got, want)
	}
	echo := h.tool("mcp__test__echo")
	if info := echo.Info(); !strings.Contains(string(info.Parameters), `"text"`) || info.Description != "Echoes its text." {
		t.Fatalf("echo info = %+v (%s)", info, info.Parameters)
	}
	if echo.(*Tool).NeedsApproval() || !h.tool("mcp__test__write_note").(*Tool).NeedsApproval() {
		t.Fatal("echo is read-only and write_note is not: only write_note needs approval")
	}

	res, err := h.call(context.Background(), "mcp__test__echo", map[string]any{"text": "hello"})
	if err != nil || textOf(res) != "hello" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	if _, err := h.call(context.Background(), "mcp__test__fail", nil); err == nil || err.Error() != "the fail tool failed" {
		t.Fatalf("fail: err = %v, want the tool's error text", err)
	}
	res, err = h.call(context.Background(), "mcp__test__image", nil)
	if err != nil || len(res.Content) != 2 || res.Content[1].Type != core.ContentImage || res.Content[1].MimeType != "image/png" ||
		res.Content[1].Data != base64.StdEncoding.EncodeToString(testserver.ImagePNG) || res.Content[0].Text != "a red pixel" {
		t.Fatalf("image = %+v, %v", res, err)
	}
	res, err = h.call(context.Background(), "mcp__test__structured", nil)
	if err != nil || textOf(res) != `{"answer":42}` {
		t.Fatalf("structured = %+v, %v", res, err)
	}
	res, err = h.call(context.Background(), "mcp__test__big", nil)
	text := textOf(res)
	if err != nil || !strings.Contains(text, "line 2000\n[Output truncated: showing 2000 of 3000 lines") || strings.Contains(text, "line 2001") {
		t.Fatalf("big: err %v, text ends %q", err, text[max(0, len(text)-200):])
	}
	if res.Details == nil {
		t.Fatal("big: no truncation details")
	}
}

func TestToolListChangedRefreshes(t *testing.T) {
	h, err := connect(t, Options{}, stdioServer("test"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.call(context.Background(), "mcp__test__add_tool", map[string]any{"name": "late"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.changed:
	case <-time.After(hangTimeout):
		t.Fatal("OnToolsChanged was not called after notifications/tools/list_changed")
	}
	res, err := h.call(context.Background(), "mcp__test__late", nil)
	if err != nil || textOf(res) != "I am late" {
		t.Fatalf("late = %+v, %v", res, err)
	}
}

func TestCallTimeout(t *testing.T) {
	timeout := startBound(300 * time.Millisecond)
	h, err := connect(t, Options{CallTimeout: timeout}, stdioServer("test"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.call(context.Background(), "mcp__test__hang", nil)
	if err == nil || err.Error() != fmt.Sprintf("MCP server test: tool hang did not answer within %s", timeout) {
		t.Fatalf("err = %v", err)
	}
	if f := h.fault(); f.Server != "test" || f.Tool != "hang" {
		t.Fatalf("fault = %+v", f)
	}
	// The SDK told the server (notifications/cancelled), which cancelled the handler.
	h.log.waitFor(t, "cancelled hang")
	if st := h.status("test"); st.State != StateConnected || !strings.Contains(st.LastError, "did not answer") {
		t.Fatalf("status = %+v", st)
	}
	// The server still works, and a good call clears the fault.
	if res, err := h.call(context.Background(), "mcp__test__echo", map[string]any{"text": "still here"}); err != nil || textOf(res) != "still here" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	if st := h.status("test"); st.LastError != "" {
		t.Fatalf("last error kept: %+v", st)
	}
}

func TestAbortCancelsTheCall(t *testing.T) {
	h, err := connect(t, Options{}, stdioServer("test"))
	if err != nil {
		t.Fatal(err)
	}
	h.abortHang(core.ToolCall{ID: "c1", Name: "mcp__test__hang"}, h.log)
}

func TestCrashMidCall(t *testing.T) {
	h, err := connect(t, Options{}, stdioServer("doomed"), stdioServer("other"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.call(context.Background(), "mcp__doomed__crash", nil)
	if err == nil || !strings.Contains(err.Error(), "MCP server doomed failed during the call of crash") || !strings.Contains(err.Error(), "crashing on purpose") {
		t.Fatalf("err = %v", err)
	}
	if f := h.fault(); f.Server != "doomed" {
		t.Fatalf("fault = %+v", f)
	}
	if st := h.status("doomed"); st.State != StateFailed || len(st.Tools) != 0 {
		t.Fatalf("status = %+v", st)
	}
	for _, tool := range h.set.Tools() {
		if strings.HasPrefix(tool.Info().Name, "mcp__doomed__") {
			t.Fatalf("the failed server's tool %s is still offered", tool.Info().Name)
		}
	}
	if res, err := h.call(context.Background(), "mcp__other__echo", map[string]any{"text": "ok"}); err != nil || textOf(res) != "ok" {
		t.Fatalf("the other server: %+v, %v", res, err)
	}
}

func TestGarbageOnStdout(t *testing.T) {
	h, err := connect(t, Options{}, stdioServer("noisy"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.call(context.Background(), "mcp__noisy__garbage", nil)
	if err == nil || !strings.Contains(err.Error(), "MCP server noisy") {
		t.Fatalf("err = %v", err)
	}
	if f := h.fault(); f.Server != "noisy" {
		t.Fatalf("fault = %+v", f)
	}
}

func TestStartFailures(t *testing.T) {
	timeout := startBound(2 * time.Second)
	h, err := connect(t, Options{CallTimeout: timeout, LookupEnv: func(string) (string, bool) { return "", false }},
		ServerConfig{Name: "missing", Command: "/nonexistent/mcp-server"},
		stdioServer("refuses", "-exit", "4"),
		stdioServer("silent", "-sleep"),
		ServerConfig{Name: "needsvar", Command: testServerBin, Env: map[string]string{"TOKEN": "${NOT_SET_ANYWHERE}"}},
		ServerConfig{Name: "bad", Type: "carrier-pigeon"},
		stdioServer("good"),
	)
	if err == nil {
		t.Fatal("Connect reported no failure")
	}
	want := map[string]string{
		"missing":  "cannot start",
		"refuses":  "mcp-testserver: refusing to start",
		"silent":   fmt.Sprintf("no answer within %s", timeout),
		"needsvar": "environment variable NOT_SET_ANYWHERE is not set",
		"bad":      `unknown type "carrier-pigeon"`,
	}
	for name, reason := range want {
		st := h.status(name)
		if st.State != StateFailed || !strings.Contains(st.Error, reason) {
			t.Errorf("%s: status %+v, want failed with %q", name, st, reason)
		}
	}
	if st := h.status("good"); st.State != StateConnected {
		t.Fatalf("good: %+v", st)
	}
	// The failed server's tools are not offered; a call through a stale tool says why.
	stale := &Tool{srv: h.set.servers["refuses"], def: h.tool("mcp__good__echo").(*Tool).def, name: "mcp__refuses__echo"}
	if _, err := stale.Execute(context.Background(), core.ToolCall{}, nil); err == nil || !strings.Contains(err.Error(), "MCP server refuses is not available") {
		t.Fatalf("stale call: %v", err)
	}
	// The silent server was killed when its start timed out.
	silent := h.set.servers["silent"]
	silent.mu.Lock()
	pid := silent.pgid
	silent.mu.Unlock()
	if pid == 0 {
		t.Fatal("the silent server was never started")
	}
	gone(t, pid)
}

func TestEnvResolvedAndCloseKillsGroup(t *testing.T) {
	h, err := connect(t, Options{LookupEnv: func(k string) (string, bool) {
		if k == "SECRET" {
			return "s3cret", true
		}
		return "", false
	}}, ServerConfig{Name: "env", Command: testServerBin, Args: []string{"-print-env", "TOKEN", "-spawn"}, Env: map[string]string{"TOKEN": "Bearer ${SECRET}"}})
	if err != nil {
		t.Fatal(err)
	}
	h.log.waitFor(t, "env TOKEN=Bearer s3cret")
	h.log.waitFor(t, "grandchild ")
	grandchild := pidFrom(t, h.log.String(), "grandchild ")
	if err := h.set.Close(); err != nil {
		t.Fatal(err)
	}
	gone(t, grandchild)
	if st := h.status("env"); st.State != StateClosed {
		t.Fatalf("status after close = %+v", st)
	}
}
