package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

var epoch = testkit.Epoch

// recordingSink keeps every event, decoded, and checks the stream's invariants as it goes.
type recordingSink struct {
	mu      sync.Mutex
	seq     int64
	encoder protocol.EventEncoder
	events  []map[string]any
	raw     [][]byte
}

// Emit encodes the event as the JSON-RPC front end does, so the tests read the events'
// fields by their wire names.
func (r *recordingSink) Emit(ev *sessionapi.Event) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	ev.Seq = r.seq
	data, err := r.encoder.Append(nil, ev)
	if err != nil {
		panic(fmt.Sprintf("event %s cannot be encoded: %v", ev.Type, err))
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		panic(fmt.Sprintf("event %s is not JSON: %v", data, err))
	}
	r.events = append(r.events, m)
	r.raw = append(r.raw, data)
	return r.seq
}

func (r *recordingSink) LastSeq() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

func (r *recordingSink) Wait(context.Context) {}

func (r *recordingSink) snapshot() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func (r *recordingSink) ofType(typ string) []map[string]any {
	var out []map[string]any
	for _, ev := range r.snapshot() {
		if ev["type"] == typ {
			out = append(out, ev)
		}
	}
	return out
}

func (r *recordingSink) types() []string {
	var out []string
	for _, ev := range r.snapshot() {
		out = append(out, ev["type"].(string))
	}
	return out
}

// sessionTypes lists the event types other than streaming detail, for readable assertions.
func (r *recordingSink) outline() []string {
	var out []string
	for _, ev := range r.snapshot() {
		t := ev["type"].(string)
		switch t {
		case "message_update", "turn_start", "turn_end", "tool_execution_start", "tool_execution_end":
			continue
		case "message_start", "message_end":
			msg := ev["message"].(map[string]any)
			t += ":" + msg["role"].(string)
			if id, ok := ev["inputId"].(string); ok {
				t += ":" + id
			}
		case "agent_settled":
			var parts []string
			for _, in := range ev["inputs"].([]any) {
				m := in.(map[string]any)
				parts = append(parts, m["inputId"].(string)+"="+m["outcome"].(string))
			}
			t += "[" + strings.Join(parts, ",") + "]"
			if ev["aborted"] == true {
				t += ":aborted"
			}
			if e, ok := ev["error"].(map[string]any); ok {
				t += ":error=" + e["kind"].(string)
			}
		case "queue_update":
			t += fmt.Sprintf("(%d,%d)", len(ev["steering"].([]any)), len(ev["followUp"].([]any)))
		case "auto_retry_start":
			t += fmt.Sprintf("(%v)", ev["attempt"])
		case "auto_retry_end":
			t += fmt.Sprintf("(%v,%v)", ev["success"], ev["attempt"])
		case "compaction_start", "compaction_end":
			t += "(" + ev["reason"].(string) + ")"
		}
		out = append(out, t)
	}
	return out
}

type harness struct {
	t     *testing.T
	sup   *session.Supervisor
	model *faux.Provider
	sink  *recordingSink
	clock *testkit.Clock
	store *session.MemoryStore
}

type harnessOpts struct {
	tools      []core.Tool
	retry      *session.RetrySettings
	compaction *session.CompactionSettings
	model      *core.Model
	// sessionID is the store's session id ("session-1" when empty).
	sessionID string
	// gate is the session's ToolsGate.
	gate session.ToolsGate
	// commands are the session's slash commands.
	commands session.CommandSet
}

func newHarness(t *testing.T, o harnessOpts, steps ...faux.Step) *harness {
	t.Helper()
	h := &harness{t: t, sink: &recordingSink{}, clock: testkit.NewClock()}
	fauxOpts := []faux.Option{faux.WithClock(func() time.Time { return epoch })}
	if o.model != nil {
		fauxOpts = append(fauxOpts, faux.WithModel(*o.model))
	}
	h.model = faux.New(fauxOpts...)
	h.model.SetResponses(steps...)
	if o.sessionID == "" {
		o.sessionID = "session-1"
	}
	h.store = testkit.MemoryStore(o.sessionID, epoch)
	retry := session.DefaultRetrySettings()
	if o.retry != nil {
		retry = *o.retry
	}
	compaction := session.DefaultCompactionSettings()
	if o.compaction != nil {
		compaction = *o.compaction
	}
	h.sup = session.New(session.Config{
		Agent:      core.Options{Provider: h.model, Model: h.model.Model(), Tools: o.tools},
		Store:      h.store,
		Sink:       h.sink,
		Clock:      h.clock,
		Retry:      retry,
		Compaction: compaction,
		ToolsGate:  o.gate,
		Commands:   o.commands,
	})
	return h
}

// heldReply is a reply of text whose stream, before its second chunk, closes started and
// waits for release, so that the test acts while the model is mid-answer.
func heldReply(text string, started chan<- struct{}, release <-chan struct{}) faux.Step {
	step := faux.Reply(faux.Text(text))
	step.BeforeChunk = func(ctx context.Context, k int) {
		if k == 1 {
			close(started)
			<-release
		}
	}
	return step
}

// result waits for a Pending a method returned, or passes its error on.
func result[T any](p *session.Pending[T], err error) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	return p.Result()
}

// keep records the answer of an input method that accepted its input and returns the
// method's error: keep(&a)(sup.Prompt(req)).
func keep(got *sessionapi.Accepted) func(sessionapi.Accepted, error) error {
	return func(a sessionapi.Accepted, err error) error {
		if err == nil {
			*got = a
		}
		return err
	}
}

func (h *harness) prompt(text string) sessionapi.Accepted {
	h.t.Helper()
	var a sessionapi.Accepted
	if err := keep(&a)(h.sup.Prompt(session.PromptRequest{Message: text})); err != nil {
		h.t.Fatalf("Prompt(%q): %v", text, err)
	}
	return a
}

// settle waits for the current busy period to settle (a hang detector, not a timing bound).
func (h *harness) settle() *sessionapi.Settled {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := h.sup.WaitSettled(ctx, "")
	if err != nil {
		h.t.Fatalf("WaitSettled: %v; events %v", err, h.sink.outline())
	}
	return st
}

// check asserts the stream's invariants: seq gap-free from 1, one agent_settled per period
// and last in it, every agent_start matched by an agent_end, runId on exactly the run's
// events.
func (h *harness) check() {
	h.t.Helper()
	evs := h.sink.snapshot()
	inRun := false
	for i, ev := range evs {
		if seq := int(ev["seq"].(float64)); seq != i+1 {
			h.t.Fatalf("event %d has seq %d", i+1, seq)
		}
		typ := ev["type"].(string)
		_, hasRun := ev["runId"]
		switch typ {
		case "agent_start":
			if inRun {
				h.t.Fatalf("agent_start at seq %d inside a run", i+1)
			}
			inRun = true
		case "agent_end":
			inRun = false
			if !hasRun {
				h.t.Fatalf("agent_end at seq %d has no runId", i+1)
			}
			continue
		}
		if inRun != hasRun {
			h.t.Fatalf("%s at seq %d: runId present %v, in run %v", typ, i+1, hasRun, inRun)
		}
		if typ == "agent_settled" && int(ev["lastSeq"].(float64)) != i+1 {
			h.t.Fatalf("agent_settled lastSeq %v, want its own seq %d", ev["lastSeq"], i+1)
		}
	}
}

func eq[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s =\n  %v\nwant\n  %v", what, got, want)
	}
}

func outcomes(st *sessionapi.Settled) []string {
	var out []string
	for _, in := range st.Inputs {
		out = append(out, in.InputID+"="+string(in.Outcome))
	}
	return out
}

// newFakeClock returns a test clock whose timers fire when the test says so.
func newFakeClock() *testkit.Clock { return testkit.NewClock() }
