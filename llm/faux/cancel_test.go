package faux_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

// TestCancelAtBoundaries cancels the context from BeforeChunk at each interesting boundary
// and checks that the stream ends there as aborted, keeping the partial content.
func TestCancelAtBoundaries(t *testing.T) {
	content := []faux.Block{faux.Text("abcdefgh"), faux.ToolCall("read", map[string]any{"path": "xyz"})}
	// With 4-rune chunks: text deltas at boundaries 0, 1; tool fragments `{"pa` `th":` `"xyz` `"}`
	// at 2..5; boundary 6 is before done.
	tests := []struct {
		name        string
		at          int // boundary to cancel at; -1 cancels before Stream is called
		want        []string
		wantContent string
	}{
		{
			name:        "before start",
			at:          -1,
			want:        []string{"start aborted", "error aborted"},
			wantContent: `[]`,
		},
		{
			name:        "before the first block",
			at:          0,
			want:        []string{"start aborted", "error aborted"},
			wantContent: `[]`,
		},
		{
			name:        "mid text",
			at:          1,
			want:        []string{"start", "text_start 0", `text_delta 0 "abcd"`, `text_end 0 "abcd"`, "error aborted"},
			wantContent: `[{"type":"text","text":"abcd"}]`,
		},
		{
			name: "mid tool arguments",
			at:   4,
			want: []string{
				"start", "text_start 0", `text_delta 0 "abcd"`, `text_delta 0 "efgh"`, `text_end 0 "abcdefgh"`,
				"toolcall_start 1 id=call_1 name=read", `toolcall_delta 1 "{\"pa"`, `toolcall_delta 1 "th\":"`,
				"toolcall_end 1 id=call_1 name=read {}",
				"error aborted",
			},
			wantContent: `[{"type":"text","text":"abcdefgh"},{"type":"toolCall","id":"call_1","name":"read","arguments":{}}]`,
		},
		{
			name: "mid tool argument value",
			at:   5,
			want: []string{
				"start", "text_start 0", `text_delta 0 "abcd"`, `text_delta 0 "efgh"`, `text_end 0 "abcdefgh"`,
				"toolcall_start 1 id=call_1 name=read", `toolcall_delta 1 "{\"pa"`, `toolcall_delta 1 "th\":"`,
				`toolcall_delta 1 "\"xyz"`,
				`toolcall_end 1 id=call_1 name=read {"path":"xyz"}`,
				"error aborted",
			},
			wantContent: `[{"type":"text","text":"abcdefgh"},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"xyz"}}]`,
		},
		{
			name: "before done",
			at:   6,
			want: []string{
				"start", "text_start 0", `text_delta 0 "abcd"`, `text_delta 0 "efgh"`, `text_end 0 "abcdefgh"`,
				"toolcall_start 1 id=call_1 name=read", `toolcall_delta 1 "{\"pa"`, `toolcall_delta 1 "th\":"`,
				`toolcall_delta 1 "\"xyz"`, `toolcall_delta 1 "\"}"`, `toolcall_end 1 id=call_1 name=read {"path":"xyz"}`,
				"error aborted",
			},
			wantContent: `[{"type":"text","text":"abcdefgh"},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"xyz"}}]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var seen []int
			step := faux.Step{Content: content, BeforeChunk: func(_ context.Context, k int) {
				seen = append(seen, k)
				if k == tc.at {
					cancel()
				}
			}}
			p := newProvider(faux.WithChunkSize(4))
			p.SetResponses(step)
			if tc.at < 0 {
				cancel()
			}
			got, msg := run(t, p, ctx, userRequest("q"))
			checkLines(t, got, tc.want)
			if msg.StopReason != core.StopReasonAborted || msg.ErrorMessage != "Request was aborted" {
				t.Errorf("message: got stopReason %q errorMessage %q, want aborted, %q",
					msg.StopReason, msg.ErrorMessage, "Request was aborted")
			}
			if c := contentJSON(t, msg); c != tc.wantContent {
				t.Errorf("content: got %s, want %s", c, tc.wantContent)
			}
			if last := seen[len(seen)-1]; tc.at >= 0 && last != tc.at {
				t.Errorf("last boundary: got %d, want %d", last, tc.at)
			}
		})
	}
}

// TestBeforeChunkBoundaries checks the boundary numbers an uncancelled stream reports.
func TestBeforeChunkBoundaries(t *testing.T) {
	var seen []int
	p := newProvider(faux.WithChunkSize(2))
	p.SetResponses(faux.Step{
		Content:     []faux.Block{faux.Text("abcd"), faux.Thinking("e")},
		BeforeChunk: func(_ context.Context, k int) { seen = append(seen, k) },
	})
	run(t, p, context.Background(), userRequest("q"))
	if want := []int{0, 1, 2, 3}; !slices.Equal(seen, want) {
		t.Errorf("boundaries: got %v, want %v", seen, want)
	}
}

// TestAbortFromAnotherGoroutine is the pattern agent tests use: the stream blocks in
// BeforeChunk, another goroutine cancels, and the hook waits for ctx.Done.
func TestAbortFromAnotherGoroutine(t *testing.T) {
	reached := make(chan struct{})
	p := newProvider(faux.WithChunkSize(1))
	p.SetResponses(faux.Step{
		Content: []faux.Block{faux.Text("abc")},
		BeforeChunk: func(ctx context.Context, k int) {
			if k == 2 {
				close(reached)
				<-ctx.Done()
			}
		},
	})
	done, cancel := runInBackground(t, p)
	<-reached
	cancel()
	checkLines(t, <-done, []string{
		"start", "text_start 0", `text_delta 0 "a"`, `text_delta 0 "b"`, `text_end 0 "ab"`, "error aborted",
	})
}

func TestHang(t *testing.T) {
	tests := []struct {
		name      string
		hangAfter int
		want      []string
	}{
		{"after one delta", 1, []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_end 0 "ab"`, "error aborted"}},
		{"before the first delta", 0, []string{"start aborted", "error aborted"}},
		{"past the end hangs before done", 99, []string{
			"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "c"`, `text_end 0 "abc"`, "error aborted",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reached := make(chan struct{})
			p := newProvider(faux.WithChunkSize(2))
			p.SetResponses(faux.Step{
				Content: []faux.Block{faux.Text("abc")},
				Hang:    true, HangAfter: tc.hangAfter,
				BeforeChunk: func(_ context.Context, k int) {
					if k == min(tc.hangAfter, 2) {
						close(reached)
					}
				},
			})
			done, cancel := runInBackground(t, p)
			<-reached
			select {
			case got := <-done:
				t.Fatalf("stream ended before cancellation: %v", got)
			default:
			}
			cancel()
			checkLines(t, <-done, tc.want)
		})
	}
}

func TestDelay(t *testing.T) {
	var slept []time.Duration
	sleep := func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		return nil
	}
	p := newProvider(faux.WithChunkSize(2), faux.WithDelay(5*time.Millisecond), faux.WithSleep(sleep))
	p.SetResponses(
		faux.Reply(faux.Text("abcd")),
		faux.Step{Content: []faux.Block{faux.Text("ab")}, Delay: 7 * time.Millisecond},
	)
	run(t, p, context.Background(), userRequest("q"))
	run(t, p, context.Background(), userRequest("q"))
	want := []time.Duration{5 * time.Millisecond, 5 * time.Millisecond, 7 * time.Millisecond}
	if !slices.Equal(slept, want) {
		t.Errorf("sleeps: got %v, want %v", slept, want)
	}
}

// TestDelayCancelled checks that a pause interrupted by cancellation ends the stream.
func TestDelayCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sleep := func(ctx context.Context, _ time.Duration) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	}
	p := newProvider(faux.WithDelay(time.Hour), faux.WithSleep(sleep))
	p.SetResponses(faux.Reply(faux.Text("abc")))
	got, _ := run(t, p, ctx, userRequest("q"))
	checkLines(t, got, []string{"start aborted", "error aborted"})
}

// TestDefaultSleepHonoursCancel uses the real timer-based pause with an hour-long delay: only
// cancellation can end the stream, so the test finishes only if the pause gives way.
func TestDefaultSleepHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := newProvider(faux.WithDelay(time.Hour))
	p.SetResponses(faux.Step{
		Content:     []faux.Block{faux.Text("abc")},
		BeforeChunk: func(context.Context, int) { cancel() },
	})
	got, msg := run(t, p, ctx, userRequest("q"))
	checkLines(t, got, []string{"start aborted", "error aborted"})
	if !errors.Is(ctx.Err(), context.Canceled) || msg.StopReason != core.StopReasonAborted {
		t.Errorf("stopReason: got %q, want aborted", msg.StopReason)
	}
}
