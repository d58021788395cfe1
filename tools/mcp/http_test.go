package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/tools/mcp/internal/testserver"
)

// httpServer serves the test server over streamable HTTP (or SSE), recording the
// Authorization header of each request; its log goes to log.
func httpServer(t *testing.T, sse bool, log *logWatch) (*httptest.Server, func() []string) {
	t.Helper()
	srv := testserver.New(testserver.Options{Log: log})
	var handler http.Handler
	if sse {
		handler = sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	} else {
		handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	}
	var mu sync.Mutex
	var auth []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), auth...)
	}
}

func testHTTP(t *testing.T, transport string) {
	serverLog := newLogWatch()
	ts, auth := httpServer(t, transport == TransportSSE, serverLog)
	h, err := connect(t, Options{LookupEnv: func(k string) (string, bool) { return "tok", k == "API_TOKEN" }},
		ServerConfig{Name: "web", Type: transport, URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer ${API_TOKEN}"}})
	if err != nil {
		t.Fatal(err)
	}
	if st := h.status("web"); st.State != StateConnected || st.Transport != transport {
		t.Fatalf("status = %+v", st)
	}
	res, err := h.call(context.Background(), "mcp__web__echo", map[string]any{"text": "over http"})
	if err != nil || textOf(res) != "over http" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
	for _, a := range auth() {
		if a != "Bearer tok" {
			t.Fatalf("a request had Authorization %q", a)
		}
	}
	res, err = h.call(context.Background(), "mcp__web__image", nil)
	if err != nil || len(res.Content) != 2 || res.Content[1].Type != core.ContentImage {
		t.Fatalf("image = %+v, %v", res, err)
	}

	// Abort reaches the server as notifications/cancelled.
	h.abortHang(core.ToolCall{Name: "mcp__web__hang"}, serverLog)

	// The tool list changes over the server's stream.
	if _, err := h.call(context.Background(), "mcp__web__add_tool", map[string]any{"name": "fresh"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.changed:
	case <-time.After(hangTimeout):
		t.Fatal("no list_changed refresh")
	}
	if res, err := h.call(context.Background(), "mcp__web__fresh", nil); err != nil || textOf(res) != "I am fresh" {
		t.Fatalf("fresh = %+v, %v", res, err)
	}
}

func TestStreamableHTTP(t *testing.T) { testHTTP(t, TransportHTTP) }

func TestSSE(t *testing.T) { testHTTP(t, TransportSSE) }

func TestHTTPServerGoneMidSession(t *testing.T) {
	ts, _ := httpServer(t, false, newLogWatch())
	h, err := connect(t, Options{CallTimeout: 5 * time.Second}, ServerConfig{Name: "web", URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	ts.CloseClientConnections()
	ts.Close()
	_, err = h.call(context.Background(), "mcp__web__echo", map[string]any{"text": "anyone?"})
	if err == nil || !strings.Contains(err.Error(), "MCP server web") {
		t.Fatalf("err = %v", err)
	}
}
