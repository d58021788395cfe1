package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// gate is a named pipe an mcp-testserver started with -gate reads before it serves: the
// server stays in its start until the test releases it.
type gate struct {
	t    *testing.T
	path string
}

func newGate(t *testing.T) *gate {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gate")
	testkit.Mkfifo(t, path, 0o600)
	return &gate{t: t, path: path}
}

// release lets the server start serving (opening the pipe waits for the server to open it).
func (g *gate) release() {
	g.t.Helper()
	f, err := os.OpenFile(g.path, os.O_WRONLY, 0)
	if err != nil {
		g.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("go\n"); err != nil {
		g.t.Fatal(err)
	}
}

// statusRecorder collects OnStatus calls.
type statusRecorder chan ServerStatus

func (r statusRecorder) next(t *testing.T) ServerStatus {
	t.Helper()
	select {
	case st := <-r:
		return st
	case <-time.After(hangTimeout):
		t.Fatal("no status reported")
	}
	return ServerStatus{}
}

// startSet is a set whose servers are started with Start, reporting to a recorder.
func startSet(t *testing.T, opts Options, servers ...ServerConfig) (*Set, statusRecorder, *logWatch) {
	t.Helper()
	rec := make(statusRecorder, 32)
	log := newLogWatch()
	opts.Logger = zerolog.New(log)
	opts.OnStatus = func(st ServerStatus) { rec <- st }
	opts.Cwd = t.TempDir()
	set := NewSet(opts)
	t.Cleanup(func() { _ = set.Close() })
	if err := set.Start(servers); err != nil {
		t.Fatal(err)
	}
	return set, rec, log
}

// Start returns while a server is still starting; each server is reported connecting, then
// connected with its tools; WaitStarted returns once the last start ended.
func TestStartDoesNotWaitForServers(t *testing.T) {
	g := newGate(t)
	set, rec, log := startSet(t, Options{}, stdioServer("slow", "-gate", g.path), stdioServer("quick"))
	if !set.Starting() {
		t.Fatal("Starting() = false right after Start")
	}
	first, second := rec.next(t), rec.next(t)
	if first.Name != "slow" || first.State != StateConnecting || second.Name != "quick" || second.State != StateConnecting {
		t.Fatalf("first statuses %+v, %+v; want both connecting, in order", first, second)
	}
	if quick := rec.next(t); quick.Name != "quick" || quick.State != StateConnected || len(quick.Tools) < 8 {
		t.Fatalf("quick's status %+v, want connected with its tools", quick)
	}
	if st := set.Status()[1]; st.Name != "slow" || st.State != StateConnecting {
		t.Fatalf("slow is %+v before its gate opens", st)
	}
	if !set.Starting() {
		t.Fatal("Starting() = false while slow starts")
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := set.WaitStarted(cancelled); err == nil {
		t.Fatal("WaitStarted returned nil while slow starts")
	}
	for _, tool := range set.Tools() {
		if strings.HasPrefix(tool.Info().Name, "mcp__slow__") {
			t.Fatalf("slow's tool %s before it is ready", tool.Info().Name)
		}
	}

	g.release()
	if slow := rec.next(t); slow.Name != "slow" || slow.State != StateConnected || len(slow.Tools) < 8 {
		t.Fatalf("slow's status %+v, want connected with its tools", slow)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangTimeout)
	defer cancel()
	if err := set.WaitStarted(ctx); err != nil {
		t.Fatal(err)
	}
	if set.Starting() {
		t.Fatal("Starting() after every start ended")
	}
	log.waitFor(t, `"mcpServer":"slow","transport":"stdio","message":"MCP server starting"`)
	log.waitFor(t, `"level":"info","mcpServer":"slow","tools":`)
	log.waitFor(t, `"message":"MCP server ready"`)
}

// A server that fails, and one that does not answer within the timeout, are reported failed
// with the reason (and logged at warn); WaitStarted then returns.
func TestStartReportsFailures(t *testing.T) {
	g := newGate(t)
	set, rec, log := startSet(t, Options{CallTimeout: 300 * time.Millisecond},
		ServerConfig{Name: "missing", Command: "/nonexistent/mcp-server"}, stdioServer("stuck", "-gate", g.path))
	got := map[string][]ServerStatus{}
	for range 4 {
		st := rec.next(t)
		got[st.Name] = append(got[st.Name], st)
	}
	for _, name := range []string{"missing", "stuck"} {
		if sts := got[name]; len(sts) != 2 || sts[0].State != StateConnecting || sts[1].State != StateFailed {
			t.Fatalf("%s's statuses %+v, want connecting then failed", name, sts)
		}
	}
	if e := got["missing"][1].Error; !strings.Contains(e, "cannot start") {
		t.Errorf("missing's error %q", e)
	}
	if e := got["stuck"][1].Error; !strings.Contains(e, "no answer within 300ms") {
		t.Errorf("stuck's error %q", e)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangTimeout)
	defer cancel()
	if err := set.WaitStarted(ctx); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, `"level":"warn","mcpServer":"stuck","error":"cannot start: no answer within 300ms`)
	log.waitFor(t, `"level":"warn","mcpServer":"missing","error":"cannot start`)
}

// A connected server that crashes is reported failed.
func TestCrashIsReported(t *testing.T) {
	set, rec, _ := startSet(t, Options{}, stdioServer("crashy"))
	rec.next(t)
	if st := rec.next(t); st.State != StateConnected {
		t.Fatalf("status %+v", st)
	}
	var crash *Tool
	for _, tool := range set.Tools() {
		if tool.Info().Name == "mcp__crashy__crash" {
			crash = tool.(*Tool)
		}
	}
	go func() {
		_, _ = crash.Execute(context.Background(), core.ToolCall{ID: "c1", Name: "mcp__crashy__crash", Args: map[string]any{}}, nil)
	}()
	if st := rec.next(t); st.Name != "crashy" || st.State != StateFailed || st.Error == "" {
		t.Fatalf("status after the crash %+v", st)
	}
}

// A server replaced while it starts is not reported failed: only its successor's start is.
func TestReplacedWhileStartingIsNotReported(t *testing.T) {
	g := newGate(t)
	set, rec, _ := startSet(t, Options{}, stdioServer("a", "-gate", g.path))
	if st := rec.next(t); st.State != StateConnecting {
		t.Fatalf("status %+v", st)
	}
	if err := set.Start([]ServerConfig{stdioServer("a")}); err != nil {
		t.Fatal(err)
	}
	if st := rec.next(t); st.State != StateConnecting {
		t.Fatalf("the successor's first status %+v", st)
	}
	if st := rec.next(t); st.State != StateConnected {
		t.Fatalf("the successor's status %+v, want connected", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangTimeout)
	defer cancel()
	if err := set.WaitStarted(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case st := <-rec:
		t.Fatalf("a status after the successor's start: %+v", st)
	default:
	}
}
