package openai

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

func pipeProvider(t *testing.T, idle time.Duration, resps ...mockopenai.Response) *Provider {
	t.Helper()
	srv := mockopenai.NewHandler(&mockopenai.Script{Responses: resps})
	t.Cleanup(srv.Release)
	p, err := New(Config{BaseURL: "http://mock.invalid/v1", APIKey: "k", KeySource: "test", IdleTimeout: idle,
		HTTPClient: &http.Client{Transport: mockhttp.PipeTransport{Handler: srv}}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIdleTimeout runs in fake time: silence longer than the idle timeout fails the stream
// with a retryable error naming the duration; keep-alive comments and a slow consumer do not.
func TestIdleTimeout(t *testing.T) {
	req := func(t *testing.T) *core.Request {
		return &core.Request{Model: modelByID(t, "gpt-4.1"), Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}}
	}
	t.Run("silence mid-stream", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := pipeProvider(t, 120*time.Second, mockopenai.Response{Text: "abcd", ChunkSize: 2, Faults: mockhttp.Faults{StallAfter: 2}})
			start := time.Now()
			got, final := run(t, context.Background(), p, req(t))
			diffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "ab"`, "error error retryable: No data from provider for 120s"})
			if d := time.Since(start); d != 120*time.Second {
				t.Errorf("failed after %v, want 2m0s", d)
			}
			if final.Failure.Kind != core.ErrorRetryable {
				t.Errorf("kind = %s, want retryable", final.Failure.Kind)
			}
		})
	})
	t.Run("silence before headers", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := pipeProvider(t, 90*time.Second, mockopenai.Response{Faults: mockhttp.Faults{StallBeforeHeaders: true}, Text: "x"})
			got, _ := run(t, context.Background(), p, req(t))
			diffLines(t, got, []string{"start error", "error error retryable: No data from provider for 90s"})
		})
	})
	t.Run("keep-alive comments keep the stream alive", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var evs []mockopenai.Event
			for range 10 {
				evs = append(evs, mockopenai.Event{DelayMs: 60_000}, mockopenai.Event{Comment: "OPENROUTER PROCESSING"})
			}
			evs = append(evs, mockopenai.Event{Text: "done"})
			p := pipeProvider(t, 120*time.Second, mockopenai.Response{Events: evs})
			got, _ := run(t, context.Background(), p, req(t))
			diffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "done"`, `text_end 0 "done"`, "done stop"})
		})
	})
	t.Run("a slow consumer pauses the timer", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := pipeProvider(t, 120*time.Second, mockopenai.Response{Text: "abcd", ChunkSize: 2})
			var got []string
			for ev := range p.Stream(context.Background(), req(t)) {
				got = append(got, describe(ev))
				if ev.Type == core.EventTextDelta {
					time.Sleep(10 * time.Minute) // the consumer is blocked, e.g. on a client that stopped reading
				}
			}
			diffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`, `text_end 0 "abcd"`, "done stop"})
		})
	})
}
