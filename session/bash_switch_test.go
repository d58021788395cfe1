package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// A bash command that ends during a busy period waits for the next input; a session switch in
// between must leave it in the session it ran in, not carry it into the new one.
func TestPendingBashStaysWithItsSession(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	model := faux.New(faux.WithClock(func() time.Time { return epoch }))
	model.SetResponses(heldReply("answer", started, release), faux.Reply(faux.Text("in new session")))
	store := testkit.MemoryStore("s1", epoch)
	sink := &recordingSink{}
	sup := session.New(session.Config{
		Agent: core.Options{Provider: model, Model: model.Model()}, Store: store, Sink: sink,
		Shell: func(ctx context.Context, command string, timeout time.Duration, onUpdate, _ func(string)) (sessionapi.BashResult, error) {
			return sessionapi.BashResult{Output: "secret from session 1"}, nil
		},
	})
	var a sessionapi.Accepted
	if err := keep(&a)(sup.Prompt(session.PromptRequest{Message: "work"})); err != nil {
		t.Fatal(err)
	}
	<-started
	if _, err := result(sup.Bash("cat secret", 0)); err != nil {
		t.Fatal(err)
	}
	close(release)
	if _, err := sup.WaitSettled(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := sup.NewSession(); err != nil {
		t.Fatal(err)
	}
	if err := keep(&a)(sup.Prompt(session.PromptRequest{Message: "hello"})); err != nil {
		t.Fatal(err)
	}
	sup.WaitSettled(context.Background(), "")
	for _, m := range sup.Messages() {
		if b, ok := m.(*core.BashExecutionMessage); ok {
			t.Fatalf("new session's context holds the old session's bash execution %q", b.Output)
		}
	}
}
