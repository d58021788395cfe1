package core_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/protocol"
)

var update = flag.Bool("update", false, "rewrite golden transcripts")

// epoch is the fixed time of every test clock, so transcripts are deterministic.
var epoch = testkit.Epoch

// recorder is a listener that keeps every event and its wire form.
type recorder struct {
	mu     sync.Mutex
	events []core.Event
	lines  []string
}

func (r *recorder) listen(_ context.Context, ev core.Event) {
	line, err := protocol.AppendCoreFields([]byte{'{'}, &ev, false)
	if err != nil {
		panic(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// Copy what a listener may only look at during the call.
	if ev.Type == core.MessageUpdate {
		u := *ev.Update
		ev.Update = &u
		ev.Message = nil
	}
	r.events = append(r.events, ev)
	r.lines = append(r.lines, string(append(line, '}')))
}

func (r *recorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.events {
		out = append(out, string(ev.Type))
	}
	return out
}

// without returns the event types minus message_update, for tests that spell out lists.
func (r *recorder) typesWithoutUpdates() []string {
	return slices.DeleteFunc(r.types(), func(s string) bool { return s == string(core.MessageUpdate) })
}

func (r *recorder) ofType(typ core.EventType) []core.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []core.Event
	for _, ev := range r.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// queue owns the steering and follow-up queues of a test, as the session owns them in
// pi-rpc: the loop pulls from it through core.Queues.
type queue struct {
	mu           sync.Mutex
	steering     []core.Input
	followUp     []core.Input
	steeringMode core.QueueMode
	followUpMode core.QueueMode
}

func (q *queue) steer(in ...core.Input) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.steering = append(q.steering, in...)
}

func (q *queue) follow(in ...core.Input) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.followUp = append(q.followUp, in...)
}

func (q *queue) setModes(steering, followUp core.QueueMode) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.steeringMode, q.followUpMode = steering, followUp
}

// queued returns copies of what is still queued.
func (q *queue) queued() (steering, followUp []core.Input) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.steering), slices.Clone(q.followUp)
}

// take is pi's PendingMessageQueue.drain: all in mode "all", else the first.
func (q *queue) take(from *[]core.Input, mode core.QueueMode) []core.Input {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(*from) == 0 {
		return nil
	}
	n := 1
	if mode == core.QueueAll {
		n = len(*from)
	}
	out := slices.Clone((*from)[:n])
	*from = slices.Delete(*from, 0, n)
	return out
}

func (q *queue) pull() core.Queues {
	return core.Queues{
		Steering: func() []core.Input { return q.take(&q.steering, q.mode(true)) },
		FollowUp: func() []core.Input { return q.take(&q.followUp, q.mode(false)) },
	}
}

func (q *queue) mode(steering bool) core.QueueMode {
	q.mu.Lock()
	defer q.mu.Unlock()
	if steering {
		return q.steeringMode
	}
	return q.followUpMode
}

type harness struct {
	t     *testing.T
	agent *core.Agent
	queue *queue
	model *faux.Provider
	rec   *recorder
	clock *testkit.Clock
	// requests are recorded by providers other than faux.
	requests []*core.Request
}

// newHarness returns an agent on a faux model with the given steps queued, a recorder
// subscribed, and a fake clock. opts.Provider, if set, replaces faux.
func newHarness(t *testing.T, opts core.Options, steps ...faux.Step) *harness {
	t.Helper()
	h := &harness{t: t, rec: &recorder{}, clock: testkit.NewClock(), queue: &queue{}}
	h.model = faux.New(faux.WithClock(func() time.Time { return epoch }))
	h.model.SetResponses(steps...)
	if opts.Provider == nil {
		opts.Provider = h.model
		opts.Model = h.model.Model()
	}
	if opts.Clock == nil {
		opts.Clock = h.clock
	}
	if opts.Queues.Steering == nil && opts.Queues.FollowUp == nil {
		opts.Queues = h.queue.pull()
	}
	h.agent = core.New(opts)
	h.agent.Subscribe(h.rec.listen)
	return h
}

func user(text string) core.Input {
	return core.Input{Message: core.NewUserMessage(text, nil, epoch.UnixMilli())}
}

func input(id, text string) core.Input {
	return core.Input{ID: id, Message: core.NewUserMessage(text, nil, epoch.UnixMilli())}
}

// prompt starts a run with one user message and waits for it.
func (h *harness) prompt(text string) []core.Message {
	h.t.Helper()
	run, err := h.agent.Prompt(user(text))
	if err != nil {
		h.t.Fatalf("Prompt: %v", err)
	}
	return h.wait(run)
}

// wait waits for a run, failing the test if it hangs (a hang detector, not a timing bound).
func (h *harness) wait(run *core.Run) []core.Message {
	h.t.Helper()
	select {
	case <-run.Done():
	case <-time.After(10 * time.Second):
		h.t.Fatalf("run did not end within 10 s; events so far: %v", h.rec.types())
	}
	return run.Wait()
}

func (h *harness) calls() []*core.Request {
	if h.requests != nil {
		return h.requests
	}
	return h.model.Requests()
}

// golden compares the run's events and the context of every model call with
// testdata/golden/<test name>.jsonl; -update rewrites the file.
func (h *harness) golden() {
	h.t.Helper()
	var b bytes.Buffer
	for _, l := range h.rec.lines {
		b.WriteString("event ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for i, req := range h.calls() {
		var names []string
		for _, tool := range req.Tools {
			names = append(names, tool.Name)
		}
		data, err := json.Marshal(struct {
			Call         int            `json:"call"`
			SystemPrompt string         `json:"systemPrompt"`
			Tools        []string       `json:"tools"`
			Messages     []core.Message `json:"messages"`
		}{i + 1, req.SystemPrompt, names, req.Messages})
		if err != nil {
			h.t.Fatal(err)
		}
		b.WriteString("request ")
		b.Write(data)
		b.WriteByte('\n')
	}
	path := filepath.Join("testdata", "golden", strings.ReplaceAll(h.t.Name(), "/", "__")+".jsonl")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatalf("golden file missing (run go test ./core -run %s -update): %v", h.t.Name(), err)
	}
	if d := testkit.DiffLines(string(want), b.String(), 1); len(d) > 0 {
		h.t.Fatalf("transcript differs from %s at line %d:\n got: %s\nwant: %s", path, d[0].Line, d[0].Got, d[0].Want)
	}
}

// echoTool is pi's test tool: it echoes its value and records what it executed.
type echoTool struct {
	mu       sync.Mutex
	executed []any
	mode     core.ExecutionMode
	name     string
	// run, if set, runs before the tool returns, with the call's value.
	run func(ctx context.Context, value any, update func(core.ToolResult)) (core.ToolResult, error)
}

func (e *echoTool) Info() core.ToolInfo {
	name := e.name
	if name == "" {
		name = "echo"
	}
	return core.ToolInfo{
		Name: name, Label: "Echo", Description: "Echoes its value.", Mode: e.mode,
		Parameters: json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}`),
	}
}

func (e *echoTool) Execute(ctx context.Context, call core.ToolCall, update func(core.ToolResult)) (core.ToolResult, error) {
	v := call.Args["value"]
	e.mu.Lock()
	e.executed = append(e.executed, v)
	e.mu.Unlock()
	if e.run != nil {
		return e.run(ctx, v, update)
	}
	return core.ToolResult{Content: []core.Content{core.TextBlock(fmt.Sprintf("echoed: %v", v))}, Details: map[string]any{"value": v}}, nil
}

func (e *echoTool) values() []any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.executed)
}

func eq[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}
