package faux_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

// HeldAt stops the stream at its boundary until release is closed, and a cancelled request
// is not held.
func TestHeldAt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		p := newProvider(faux.WithChunkSize(2))
		p.SetResponses(faux.HeldAt(faux.Reply(faux.Text("abcdef")), 1, release))
		deltas := make(chan string, 8)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for ev := range p.Stream(context.Background(), userRequest("q")) {
				if ev.Type == core.EventTextDelta {
					deltas <- ev.Delta
				}
			}
		}()
		synctest.Wait()
		if len(deltas) != 1 {
			t.Fatalf("%d deltas before the release, want 1 (held at boundary 1)", len(deltas))
		}
		close(release)
		<-done
		if len(deltas) != 3 {
			t.Fatalf("%d deltas after the release, want 3", len(deltas))
		}

		ctx, cancel := context.WithCancel(context.Background())
		p.SetResponses(faux.HeldAt(faux.Reply(faux.Text("abcdef")), 1, make(chan struct{})))
		cancel()
		for range p.Stream(ctx, userRequest("q")) {
		}
	})
}
