package openai

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// TestIdleTimeout runs in fake time: silence longer than the idle timeout fails the stream
// with a retryable error naming the duration; keep-alive comments and a slow consumer do not.
func TestIdleTimeout(t *testing.T) {
	providertest.Idle[mockopenai.Response]{
		Mock:          mock(t),
		KeepAlive:     mockopenai.Response{Events: providertest.Beats(mockopenai.Event{DelayMs: 60_000}, mockopenai.Event{Comment: "OPENROUTER PROCESSING"}, mockopenai.Event{Text: "done"})},
		KeepAliveName: "keep-alive comments keep the stream alive",
	}.Run(t)
}
