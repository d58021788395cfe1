package anthropic

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockanthropic"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// TestIdleTimeout runs in fake time: a silent backend fails the stream after the idle
// timeout with a retryable error naming the duration; pings, comments and a slow consumer
// do not.
func TestIdleTimeout(t *testing.T) {
	providertest.Idle[mockanthropic.Response]{
		Mock:          mock(t),
		KeepAlive:     mockanthropic.Response{Events: providertest.Beats(mockanthropic.Event{DelayMs: 60_000}, mockanthropic.Event{Ping: true}, mockanthropic.Event{Text: "done"})},
		KeepAliveName: "pings keep the stream alive",
	}.Run(t)
}
