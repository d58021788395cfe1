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

// Cancel is one cancellation case: the consumer cancels the context after the event
// described as Trigger; the stream gives Want (the open blocks end with their content as
// it stood) and ends aborted with Content (as JSON).
type Cancel struct {
	Name, Trigger string
	Want          []string
	Content       string
}

// Run streams req through p, cancelling at the trigger, and checks the events and the
// final message.
func (c Cancel) Run(t *testing.T, p core.Provider, req *core.Request, d Describer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	var final *core.AssistantMessage
	for ev := range p.Stream(ctx, req) {
		got = append(got, d.Event(ev))
		if got[len(got)-1] == c.Trigger {
			cancel()
		}
		if ev.Type == core.EventError || ev.Type == core.EventDone {
			final = ev.Partial
		}
	}
	DiffLines(t, got, c.Want)
	if final == nil || final.StopReason != core.StopReasonAborted {
		t.Fatalf("final = %+v, want aborted", final)
	}
	if content := ContentJSON(t, final); content != c.Content {
		t.Errorf("content = %s, want %s", content, c.Content)
	}
}

// CancelMidText is the [Cancel] case every provider shares: cancelling at the delta "cd"
// ends the open text block, and the stream ends aborted with the partial content.
var CancelMidText = Cancel{
	Name: "mid text", Trigger: `text_delta 0 "cd"`,
	Want:    []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`, `text_end 0 "abcd"`, "error aborted aborted: Request was aborted"},
	Content: `[{"type":"text","text":"abcd"}]`,
}

// CancelMidStream runs [CancelMidText].
func CancelMidStream(t *testing.T, p core.Provider, req *core.Request, d Describer) {
	t.Helper()
	CancelMidText.Run(t, p, req, d)
}

// CancelBeforeHeaders cancels while the server has not answered: hook receives the cancel
// function and arranges for the mock to call it when the request arrives.
func CancelBeforeHeaders(t *testing.T, p core.Provider, req *core.Request, d Describer, hook func(cancel context.CancelFunc)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hook(cancel)
	got, final := Run(t, ctx, p, req, d.Event)
	DiffLines(t, got, []string{d.Start(core.StopReasonAborted), "error aborted aborted: Request was aborted"})
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
