package session_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
	"github.com/pi-rpc/pi-rpc/tools"
)

// stalledSink models a client that has stopped reading: nothing drains, and Wait would block
// once more than limit bytes are queued.
type stalledSink struct {
	mu    sync.Mutex
	seq   int64
	bytes int
	waits int
}

func (s *stalledSink) Emit(ev *sessionapi.Event) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	if u, ok := ev.Payload.(sessionapi.BashUpdate); ok {
		s.bytes += len(u.Output)
	}
	return s.seq
}
func (s *stalledSink) LastSeq() int64       { s.mu.Lock(); defer s.mu.Unlock(); return s.seq }
func (s *stalledSink) Wait(context.Context) { s.mu.Lock(); s.waits++; s.mu.Unlock() }

// bash_update snapshots (up to 50 KB every 100 ms) go through the sink's backpressure, like
// the agent's events: a client that stops reading pauses the command's output instead of
// growing the server's memory. (Found by review: they never waited.)
func TestBashUpdatesWaitForTheClient(t *testing.T) {
	dir := t.TempDir()
	sink := &stalledSink{}
	store := testkit.MemoryStore("s", epoch)
	sup := session.New(session.Config{
		Agent: core.Options{}, Store: store, Sink: sink,
		Shell: func(ctx context.Context, command string, timeout time.Duration, onUpdate, _ func(string)) (sessionapi.BashResult, error) {
			res, err := tools.RunShell(ctx, tools.ShellOptions{Command: command, Dir: dir, Timeout: timeout, OnUpdate: func(s tools.ShellSnapshot) { onUpdate(s.Output) }})
			return sessionapi.BashResult{Output: res.Output}, err
		},
	})
	_, err := result(sup.Bash("for i in $(seq 30); do head -c 40000 /dev/zero | tr '\\0' x; echo; sleep 0.1; done", 0))
	if err != nil {
		t.Fatal(err)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	t.Logf("bash_update bytes queued for a client that reads nothing: %d, Wait calls: %d", sink.bytes, sink.waits)
	if sink.waits == 0 {
		t.Fatalf("%d bytes of bash_update emitted without waiting for the client once", sink.bytes)
	}
}
