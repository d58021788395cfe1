package google

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

func pipeProvider(t *testing.T, idle time.Duration, resps ...mockgoogle.Response) *Provider {
	t.Helper()
	srv := mockgoogle.NewHandler(&mockgoogle.Script{Responses: resps})
	t.Cleanup(srv.Release)
	p, err := New(Config{BaseURL: "http://mock.invalid", APIKey: "k", KeySource: "test", IdleTimeout: idle,
		HTTPClient: &http.Client{Transport: mockhttp.PipeTransport{Handler: srv}}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIdleTimeout runs in fake time: a silent backend fails the stream after the idle
// timeout with a retryable error naming the duration; chunks slower than it and a slow
// consumer do not.
func TestIdleTimeout(t *testing.T) {
	t.Run("silence mid-stream", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := pipeProvider(t, 120*time.Second, mockgoogle.Response{Text: "abcd", ChunkSize: 2, StallAfter: 1})
			start := time.Now()
			got, final := run(t, context.Background(), p, hiRequest(t, "gemini-2.5-flash"))
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
			p := pipeProvider(t, 90*time.Second, mockgoogle.Response{StallBeforeHeaders: true, Text: "x"})
			got, _ := run(t, context.Background(), p, hiRequest(t, "gemini-2.5-flash"))
			diffLines(t, got, []string{"start", "error error retryable: No data from provider for 90s"})
		})
	})
	t.Run("chunks keep the stream alive", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var evs []mockgoogle.Event
			for range 10 {
				evs = append(evs, mockgoogle.Event{DelayMs: 60_000}, mockgoogle.Event{Text: "."})
			}
			evs = append(evs, mockgoogle.Event{Text: "done"})
			p := pipeProvider(t, 120*time.Second, mockgoogle.Response{Events: evs})
			got, _ := run(t, context.Background(), p, hiRequest(t, "gemini-2.5-flash"))
			if last := got[len(got)-1]; last != "done stop" || len(got) != 15 {
				t.Errorf("events = %v, want 11 deltas and done", got)
			}
		})
	})
	t.Run("a slow consumer pauses the timer", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := pipeProvider(t, 120*time.Second, mockgoogle.Response{Text: "abcd", ChunkSize: 2})
			var got []string
			for ev := range p.Stream(context.Background(), hiRequest(t, "gemini-2.5-flash")) {
				got = append(got, describeEvent(ev))
				if ev.Type == core.EventTextDelta {
					time.Sleep(10 * time.Minute) // the consumer is blocked, e.g. on a client that stopped reading
				}
			}
			diffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`, `text_end 0 "abcd"`, "done stop"})
		})
	})
}
