package faux_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

// fixedClock stamps every message at 1000 ms, so transcripts compare equal.
func fixedClock() time.Time { return time.UnixMilli(1000) }

// newProvider returns a provider with a fixed clock and the given options.
func newProvider(opts ...faux.Option) *faux.Provider {
	return faux.New(append([]faux.Option{faux.WithClock(fixedClock)}, opts...)...)
}

// userRequest returns a request holding one user message.
func userRequest(text string) *core.Request {
	return &core.Request{
		Model:    faux.DefaultModel(),
		Messages: []core.Message{core.NewUserMessage(text, nil, 1)},
	}
}

// describe renders an event as one comparable line.
func describe(ev core.AssistantEvent) string {
	switch ev.Type {
	case core.EventStart:
		// The message as it stands at the start: a response that failed before any content
		// already says so.
		if m := ev.Partial; m.StopReason != core.StopReasonStop {
			return fmt.Sprintf("start %s", m.StopReason)
		}
		return "start"
	case core.EventTextStart, core.EventThinkingStart:
		return fmt.Sprintf("%s %d", ev.Type, ev.ContentIndex)
	case core.EventTextDelta, core.EventThinkingDelta, core.EventToolCallDelta:
		s := fmt.Sprintf("%s %d %q", ev.Type, ev.ContentIndex, ev.Delta)
		if ev.ID != "" || ev.Name != "" {
			s += fmt.Sprintf(" id=%s name=%s", ev.ID, ev.Name)
		}
		return s
	case core.EventTextEnd, core.EventThinkingEnd:
		return fmt.Sprintf("%s %d %q", ev.Type, ev.ContentIndex, ev.Content)
	case core.EventToolCallStart:
		return fmt.Sprintf("%s %d id=%s name=%s", ev.Type, ev.ContentIndex, ev.ID, ev.Name)
	case core.EventToolCallEnd:
		args, _ := json.Marshal(ev.ToolCall.Arguments)
		return fmt.Sprintf("%s %d id=%s name=%s %s", ev.Type, ev.ContentIndex, ev.ToolCall.ID, ev.ToolCall.Name, args)
	default:
		return fmt.Sprintf("%s %s", ev.Type, ev.Reason)
	}
}

// collect drains a stream, returning its events rendered and the final message.
func collect(t *testing.T, seq iter.Seq[core.AssistantEvent]) ([]string, *core.AssistantMessage) {
	t.Helper()
	var lines []string
	var final *core.AssistantMessage
	for ev := range seq {
		if final != nil {
			t.Fatalf("event %q after the terminal event", describe(ev))
		}
		lines = append(lines, describe(ev))
		if ev.Type == core.EventDone || ev.Type == core.EventError {
			final = ev.Partial
		}
	}
	if final == nil {
		t.Fatalf("stream ended without done or error; events: %v", lines)
	}
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "start") {
		t.Fatalf("first event: got %v, want start", lines)
	}
	return lines, final
}

// run streams one call of p for req.
func run(t *testing.T, p *faux.Provider, ctx context.Context, req *core.Request) ([]string, *core.AssistantMessage) {
	t.Helper()
	return collect(t, p.Stream(ctx, req))
}

// runInBackground streams a request for "q" from p on a context that the returned cancel (or
// the test's end) cancels; the channel gets the stream's lines once it ends.
func runInBackground(t *testing.T, p *faux.Provider) (<-chan []string, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan []string, 1)
	go func() {
		got, _ := run(t, p, ctx, userRequest("q"))
		done <- got
	}()
	return done, cancel
}

func checkLines(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("events:\ngot  %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

// contentJSON renders message content in pi's JSON shape.
func contentJSON(t *testing.T, m *core.AssistantMessage) string {
	t.Helper()
	data, err := json.Marshal(m.Content)
	if err != nil {
		t.Fatalf("marshal content: %v", err)
	}
	return string(data)
}
