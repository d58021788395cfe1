package piclient_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/sessionapi"

	"github.com/rs/zerolog"

	piclient "github.com/pi-rpc/pi-rpc/clients/go"
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/rpc"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/tools"
)

// The tests in this file drive the real server (rpc over a session supervisor on the faux
// model) in process over pipes, wired as cmd/pi-rpc wires it: a file-backed session catalog
// in a temp dir, the tools package's shell for bash, a model list for setModel.

// hangLimit only detects hangs; nothing waits for it to pass.
const hangLimit = 20 * time.Second

var epoch = time.Date(2026, 5, 7, 12, 0, 0, 0, time.UTC)

// fixedModels serves listModels and setModel from a list, all on one provider.
type fixedModels struct {
	list     []core.Model
	provider core.Provider
}

func (m fixedModels) List() []core.Model { return m.list }

func (m fixedModels) Resolve(provider, id string) (core.Model, core.Provider, error) {
	for _, model := range m.list {
		if model.ID == id && (provider == "" || provider == model.Provider) {
			return model, m.provider, nil
		}
	}
	return core.Model{}, nil, fmt.Errorf("Model not found: %s", id)
}

// failingStore is a session store whose appends fail, as a full disk makes them.
type failingStore struct{ session.Store }

func (failingStore) Append(*session.Entry) error { return errors.New("disk full") }

type serverOpts struct {
	approval string
	tools    []core.Tool
	// store replaces the catalog's new file-backed session.
	store func(session.Store) session.Store
	perm  func(context.Context, piclient.PermissionRequest) piclient.PermissionDecision
}

type testServer struct {
	c     *piclient.Client
	model *faux.Provider
	dir   string
	sup   *session.Supervisor
}

// pipeConn is the client's end of the two pipes.
type pipeConn struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (p pipeConn) Close() error {
	for _, c := range p.closers {
		_ = c.Close()
	}
	return nil
}

func startServer(t *testing.T, o serverOpts, steps ...faux.Step) *testServer {
	t.Helper()
	dir := t.TempDir()
	model := faux.DefaultModel()
	model.Reasoning = true
	other := model
	other.ID = "faux-2"
	p := faux.New(faux.WithClock(func() time.Time { return epoch }), faux.WithModel(model))
	p.SetResponses(steps...)
	cat := &session.Catalog{
		Root: filepath.Join(dir, "sessions"), Dir: filepath.Join(dir, "sessions", session.EncodeCwd(dir)), Cwd: dir,
		Options: session.FileOptions{Now: func() string { return session.ISOTime(epoch) }},
	}
	store, err := cat.Create("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.store != nil {
		store = o.store(store)
	}
	std, err := tools.New([]string{"read", "write"}, tools.Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	writer := rpc.NewWriter(outW, 1<<20)
	sup := session.New(session.Config{
		Agent: core.Options{Provider: p, Model: model, Tools: append(std, o.tools...)},
		Store: store, Sessions: cat, Sink: writer, Clock: testkit.Immediate(epoch),
		Retry: session.DefaultRetrySettings(),
		// A small verbatim tail, so that a short conversation has something to compact.
		Compaction: session.CompactionSettings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 1},
		Approval:   o.approval, ApprovalFixed: o.approval != "",
		Shell: func(ctx context.Context, command string, timeout time.Duration, onUpdate, _ func(string)) (sessionapi.BashResult, error) {
			res, err := tools.RunShell(ctx, tools.ShellOptions{Command: command, Dir: dir, Timeout: timeout,
				OnUpdate: func(s tools.ShellSnapshot) { onUpdate(s.Output) }})
			return sessionapi.BashResult{Output: res.Output, ExitCode: res.ExitCode, Cancelled: res.Cancelled, Truncated: res.Truncated, FullOutputPath: res.FullOutputPath}, err
		},
	})
	sup.StartSession()
	host := session.NewHost(session.HostConfig{Models: fixedModels{[]core.Model{model, other}, p}, List: cat.List})
	host.Adopt(&session.Opened{Supervisor: sup})
	server := rpc.NewServer(rpc.Options{Host: host, Writer: writer, In: inR, Framing: rpc.FramingNDJSON,
		Logger: zerolog.Nop(), Version: "test"})
	server.Serve(context.Background())
	c := piclient.New(pipeConn{outR, inW, []io.Closer{inW, outR}}, piclient.Options{OnPermission: o.perm})
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		<-server.InputClosed()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// Close, not Shutdown: it also releases the session file's lock (an open file
		// cannot be removed on Windows, so t.TempDir's clean-up would fail there).
		_ = sup.Close(ctx)
		server.CancelAll()
		server.AwaitReplies(time.Second)
		server.Close()
		writer.Close(time.Second)
		_ = outW.Close()
	})
	return &testServer{c: c, model: p, dir: dir, sup: sup}
}

func limitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	t.Cleanup(cancel)
	return ctx
}

func must[T any](t *testing.T, what string) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
}

// waitEvent takes events until one of type typ, and returns it with those before it.
func waitEvent(ctx context.Context, t *testing.T, c *piclient.Client, typ string) (piclient.Event, []piclient.Event) {
	t.Helper()
	var before []piclient.Event
	for ev, err := range c.Events(ctx) {
		if err != nil {
			t.Fatalf("waiting for %s: %v", typ, err)
		}
		if ev.Type == typ {
			return ev, before
		}
		before = append(before, ev)
	}
	t.Fatalf("the connection ended before a %s event", typ)
	return piclient.Event{}, nil
}
