package providertest

import (
	"context"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
)

// The cancellation checks take a provider whose mock streams "abcdef" in chunks of 2 and
// stalls after "cd" (CancelMidStream, ConsumerStops), or never sends its headers
// (CancelBeforeHeaders). The caller then waits with [AwaitGone] for the server to see the
// client go away.

// CancelMidStream cancels the context when the delta "cd" arrives: the open text block
// ends, and the stream ends aborted with the partial content.
func CancelMidStream(t *testing.T, p core.Provider, req *core.Request, describe func(core.AssistantEvent) string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	var final *core.AssistantMessage
	for ev := range p.Stream(ctx, req) {
		got = append(got, describe(ev))
		if ev.Type == core.EventTextDelta && ev.Delta == "cd" {
			cancel()
		}
		if ev.Type == core.EventError || ev.Type == core.EventDone {
			final = ev.Partial
		}
	}
	DiffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`, `text_end 0 "abcd"`, "error aborted aborted: Request was aborted"})
	if final == nil || final.StopReason != core.StopReasonAborted || core.TextOf(final.Content) != "abcd" {
		t.Fatalf("final = %+v, want aborted with text abcd", final)
	}
}

// CancelBeforeHeaders cancels while the server has not answered: hook receives the cancel
// function and arranges for the mock to call it when the request arrives.
func CancelBeforeHeaders(t *testing.T, p core.Provider, req *core.Request, describe func(core.AssistantEvent) string, hook func(cancel context.CancelFunc)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hook(cancel)
	got, final := Run(t, ctx, p, req, describe)
	DiffLines(t, got, []string{"start", "error aborted aborted: Request was aborted"})
	if final.Failure == nil || final.Failure.Kind != core.ErrorAborted {
		t.Errorf("failure = %+v, want aborted", final.Failure)
	}
}

// ConsumerStops breaks out of the loop at the first text delta, the third event.
func ConsumerStops(t *testing.T, p core.Provider, req *core.Request) {
	t.Helper()
	n := 0
	for ev := range p.Stream(context.Background(), req) {
		n++
		if ev.Type == core.EventTextDelta {
			break
		}
	}
	if n != 3 {
		t.Errorf("events before break = %d, want 3", n)
	}
}

// AwaitGone waits for a recorded request's Gone channel, failing the test after ten
// seconds.
func AwaitGone(t *testing.T, gone <-chan struct{}) {
	t.Helper()
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the client go away")
	}
}
