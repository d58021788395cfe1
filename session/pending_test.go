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

// The user's bash command runs on the session's own goroutine: Bash returns at once with
// the shell claimed, the Pending's Cancel kills that command, and its Seq is the last
// bash_update it caused.
func TestBashPending(t *testing.T) {
	running := make(chan struct{})
	store := testkit.MemoryStore("s1", epoch)
	sink := &recordingSink{}
	sup := session.New(session.Config{
		Agent: core.Options{Provider: faux.New()}, Store: store, Sink: sink,
		Shell: func(ctx context.Context, command string, timeout time.Duration, onUpdate, _ func(string)) (sessionapi.BashResult, error) {
			onUpdate("partial")
			close(running)
			<-ctx.Done()
			return sessionapi.BashResult{Output: "partial", Cancelled: true}, nil
		},
	})
	run, err := sup.Bash("sleep forever", 0)
	if err != nil {
		t.Fatal(err)
	}
	<-running
	if _, err := sup.Bash("second", 0); kindOfErr(err) != session.KindBusy {
		t.Fatalf("a second command while one runs = %v, want busy", err)
	}
	select {
	case <-run.Done():
		t.Fatal("the command finished before it was cancelled")
	default:
	}
	run.Cancel()
	res, err := run.Result()
	if err != nil || !res.Cancelled {
		t.Fatalf("result = %+v, %v; want cancelled", res, err)
	}
	updates := sink.ofType("bash_update")
	if len(updates) != 1 || run.Seq() != int64(updates[0]["seq"].(float64)) {
		t.Fatalf("Seq %d, bash_update events %v", run.Seq(), updates)
	}
}

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

// A manual compaction's Pending finishes after its busy period's agent_settled, whose seq is
// the one its answer follows; a wait for the period returns that agent_settled too.
func TestCompactPendingFollowsTheSettle(t *testing.T) {
	h := twoExchanges(t, faux.Reply(faux.Text("## Goal\nsummary")))
	compaction, err := h.sup.Compact("")
	if err != nil {
		t.Fatal(err)
	}
	wait, err := h.sup.Wait("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := compaction.Result(); err != nil {
		t.Fatal(err)
	}
	settled := h.sink.ofType("agent_settled")
	last := int64(settled[len(settled)-1]["seq"].(float64))
	if compaction.Seq() != last {
		t.Fatalf("compaction Seq %d, want the agent_settled's %d", compaction.Seq(), last)
	}
	st, err := wait.Wait(context.Background())
	if err != nil || st.LastSeq != last {
		t.Fatalf("wait = %+v, %v; want the compaction's agent_settled", st, err)
	}
	h.check()
}
