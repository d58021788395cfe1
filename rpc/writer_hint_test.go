package rpc

import (
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// A small event after a large one gets a small buffer: the queue's limit counts the bytes of
// an event, not its buffer's capacity, so a delta must not keep a large one alive.
func TestEventBufferAfterALargeEvent(t *testing.T) {
	w := NewWriter(io.Discard, 1<<30) // not started: events stay queued
	big := &core.AssistantMessage{Content: []core.Content{{Type: core.ContentText, Text: strings.Repeat("x", 256<<10)}}}
	w.Emit(&sessionapi.Event{Type: "message_end", Core: &core.Event{Type: core.MessageEnd, Message: big}})
	update := core.AssistantEvent{Type: core.EventTextDelta, Delta: "the "}
	delta := &sessionapi.Event{Type: "message_update", Core: &core.Event{Type: core.MessageUpdate, Update: &update, Message: &core.AssistantMessage{}}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w.Emit(delta)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Fatalf("a delta after a 256 KB event allocated %d bytes", n)
	}
}
