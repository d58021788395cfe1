package session_test

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// A steer accepted during a manual compaction joins its busy period (disposition "queued")
// and is delivered by a continuation run of that period, which then settles it completed;
// nothing stays queued. (Found by review: it used to settle "cancelled" while staying in the
// agent's queue, and the next prompt delivered it.)
func TestSteerDuringManualCompactionIsDelivered(t *testing.T) {
	// The summary waits until the steer is queued: the compaction must still be running.
	release := make(chan struct{})
	summary := faux.HeldAt(faux.Reply(faux.Text("## Goal\nsummary")), 0, release)
	h := twoExchanges(t, summary, faux.Reply(faux.Text("third answer")))
	run, err := h.sup.Compact("")
	if err != nil {
		t.Fatal(err)
	}
	var a sessionapi.Accepted
	if err := keep(&a)(h.sup.Steer(session.QueueRequest{Message: "steer during compaction"})); err != nil {
		t.Fatal(err)
	}
	if a.Disposition != session.DispositionQueued {
		t.Fatalf("disposition %v, want queued", a.Disposition)
	}
	close(release)
	if _, err := run.Result(); err != nil {
		t.Fatal(err)
	}
	st := h.settle()
	eq(t, "outcomes", outcomes(st), []string{a.InputID + "=completed"})
	if busy := h.sup.State().Busy; len(busy.Steering)+len(busy.FollowUp) > 0 {
		t.Fatal("still queued after the period settled")
	}
	msgs := h.sup.Messages()
	last := msgs[len(msgs)-2].(*core.UserMessage)
	if core.TextOf(last.Content) != "steer during compaction" {
		t.Fatalf("the steer was not delivered after the compaction: %v", testkit.Roles(msgs))
	}
	h.check()
}
