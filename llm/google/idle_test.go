package google

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// TestIdleTimeout runs in fake time: a silent backend fails the stream after the idle
// timeout with a retryable error naming the duration; chunks slower than it and a slow
// consumer do not.
func TestIdleTimeout(t *testing.T) {
	providertest.Idle[mockgoogle.Response]{
		Mock:          mock(t),
		KeepAlive:     mockgoogle.Response{Events: providertest.Beats(mockgoogle.Event{DelayMs: 60_000}, mockgoogle.Event{Text: "."}, mockgoogle.Event{Text: "done"})},
		KeepAliveName: "chunks keep the stream alive",
		CheckKeepAlive: func(t *testing.T, got []string) {
			if last := got[len(got)-1]; last != "done stop" || len(got) != 15 {
				t.Errorf("events = %v, want 11 deltas and done", got)
			}
		},
	}.Run(t)
}
