package mcp

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// hangTimeout fails a wait that sees no progress: a hang detector, not a latency bound.
const hangTimeout = 10 * time.Second

// startBound is d, the CallTimeout of a test that wants a timeout to fire, which also bounds
// the server's start: under Wine, where starting a process takes seconds, 20 s instead.
func startBound(d time.Duration) time.Duration {
	if testkit.UnderWine() {
		return 20 * time.Second
	}
	return d
}

// testServer is the mcp-testserver command (prebuilt under Wine: testkit.BinDirEnv);
// testServerBin is its path, built by TestMain.
var (
	testServer    = testkit.Command{Pkg: "./internal/testserver/mcp-testserver"}
	testServerBin string
)

func TestMain(m *testing.M) {
	if os.Getenv(parentModeEnv) != "" {
		runAsParent()
		return
	}
	var err error
	if testServerBin, err = testServer.Build(); err != nil {
		fmt.Fprintln(os.Stderr, "building mcp-testserver:", err)
		os.Exit(1)
	}
	code := m.Run()
	testServer.Remove()
	os.Exit(code)
}

// logWatch is a log sink tests wait on for a line containing some text.
type logWatch struct {
	mu    sync.Mutex
	text  strings.Builder
	grown chan struct{}
}

func newLogWatch() *logWatch { return &logWatch{grown: make(chan struct{})} }

func (w *logWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text.Write(p)
	close(w.grown)
	w.grown = make(chan struct{})
	return len(p), nil
}

func (w *logWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.String()
}

// waitFor waits until the log contains s.
func (w *logWatch) waitFor(t *testing.T, s string) {
	t.Helper()
	for {
		w.mu.Lock()
		has, grown := strings.Contains(w.text.String(), s), w.grown
		w.mu.Unlock()
		if has {
			return
		}
		select {
		case <-grown:
		case <-time.After(hangTimeout):
			t.Fatalf("the log never said %q; it has:\n%s", s, w.String())
		}
	}
}

// harness is a Set under test with its log and fault channel.
type harness struct {
	t       *testing.T
	set     *Set
	log     *logWatch
	faults  chan Fault
	changed chan struct{}
}

func stdioServer(name string, args ...string) ServerConfig {
	return ServerConfig{Name: name, Command: testServerBin, Args: args}
}

// connect starts servers with a fresh harness; the set is closed at cleanup.
func connect(t *testing.T, opts Options, servers ...ServerConfig) (*harness, error) {
	t.Helper()
	h := &harness{t: t, log: newLogWatch(), faults: make(chan Fault, 16), changed: make(chan struct{}, 16)}
	opts.Logger = zerolog.New(h.log)
	opts.OnFault = func(f Fault) { h.faults <- f }
	opts.OnToolsChanged = func() { h.changed <- struct{}{} }
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	set, err := Connect(context.Background(), servers, opts)
	h.set = set
	t.Cleanup(func() {
		if err := set.Close(); err != nil {
			t.Error(err)
		}
	})
	return h, err
}

// tool finds a tool of the set by name.
func (h *harness) tool(name string) core.Tool {
	h.t.Helper()
	var names []string
	for _, tool := range h.set.Tools() {
		if tool.Info().Name == name {
			return tool
		}
		names = append(names, tool.Info().Name)
	}
	h.t.Fatalf("no tool %s among %v", name, names)
	return nil
}

// call runs a tool with a hang detector.
func (h *harness) call(ctx context.Context, name string, args map[string]any) (core.ToolResult, error) {
	h.t.Helper()
	tool := h.tool(name)
	type outcome struct {
		res core.ToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := tool.Execute(ctx, core.ToolCall{ID: "c1", Name: name, Args: args}, func(core.ToolResult) {})
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(h.set.opts.callTimeout() + hangTimeout): // (a call's own timeout must fire first)
		h.t.Fatalf("%s did not return", name)
	}
	return core.ToolResult{}, nil
}

// abortHang runs a server's hang tool as call, aborts it once serverLog says it started, and
// checks that the call returns aborted and that the server saw the cancellation.
func (h *harness) abortHang(call core.ToolCall, serverLog *logWatch) {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	hang := h.tool(call.Name)
	go func() {
		_, err := hang.Execute(ctx, call, func(core.ToolResult) {})
		done <- err
	}()
	serverLog.waitFor(h.t, "hang started")
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "aborted") {
			h.t.Fatalf("%s: %v, want aborted", call.Name, err)
		}
	case <-time.After(hangTimeout):
		h.t.Fatal("the aborted call did not return")
	}
	serverLog.waitFor(h.t, "cancelled hang")
}

func (h *harness) fault() Fault {
	h.t.Helper()
	select {
	case f := <-h.faults:
		return f
	case <-time.After(hangTimeout):
		h.t.Fatal("no fault reported")
	}
	return Fault{}
}

func (h *harness) status(name string) ServerStatus {
	h.t.Helper()
	for _, st := range h.set.Status() {
		if st.Name == name {
			return st
		}
	}
	h.t.Fatalf("no server %s in %+v", name, h.set.Status())
	return ServerStatus{}
}

// textOf joins a result's text blocks.
func textOf(r core.ToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == core.ContentText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// gone waits until no process with pid is alive (a zombie counts as gone: it runs nothing).
func gone(t *testing.T, pid int) {
	t.Helper()
	if !testkit.WaitProcessExit(pid, hangTimeout) {
		t.Fatalf("process %d is still alive", pid)
	}
}

// pidFrom reads the number after prefix in the log ("grandchild 123").
func pidFrom(t *testing.T, log, prefix string) int {
	t.Helper()
	i := strings.Index(log, prefix)
	if i < 0 {
		t.Fatalf("no %q in log", prefix)
	}
	f := strings.FieldsFunc(log[i+len(prefix):], func(r rune) bool { return r < '0' || r > '9' })
	pid, err := strconv.Atoi(f[0])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}
