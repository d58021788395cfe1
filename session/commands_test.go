package session_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// upperCommands is a CommandSet whose one command /up shouts its arguments.
type upperCommands struct{}

func (upperCommands) Commands() []sessionapi.Command {
	return []sessionapi.Command{{Name: "up", Description: "Shout", Source: sessionapi.CommandPrompt}}
}

func (upperCommands) Expand(text string) string {
	if args, ok := strings.CutPrefix(text, "/up "); ok {
		return "UP: " + strings.ToUpper(args)
	}
	return text
}

// Prompt, steer and follow-up expand their text before it enters the agent: the model, the
// queue and the session's messages see the expansion, not the command.
func TestInputsExpandCommands(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, harnessOpts{commands: upperCommands{}},
		faux.HeldAt(faux.Reply(faux.Text("one")), 0, release),
		faux.Reply(faux.Text("two")),
		faux.Reply(faux.Text("three")),
	)
	h.prompt("/up first")
	if _, err := h.sup.Steer(session.QueueRequest{Message: "/up second"}); err != nil {
		t.Fatal(err)
	}
	q := h.sink.ofType("queue_update")
	if len(q) == 0 || !strings.Contains(toJSON(t, q[0]), "UP: SECOND") {
		t.Fatalf("queue_update = %v, want the expanded steer", q)
	}
	close(release)
	h.settle()
	if _, err := h.sup.FollowUp(session.QueueRequest{Message: "/up third"}); err != nil {
		t.Fatal(err)
	}
	h.settle()
	reqs := h.model.Requests()
	want := []string{"UP: FIRST", "UP: SECOND", "UP: THIRD"}
	if got := testkit.UserTexts(reqs[len(reqs)-1]); !reflect.DeepEqual(got, want) {
		t.Errorf("the model's user messages = %q, want %q", got, want)
	}
	if got := h.sup.Commands(); len(got) != 1 || got[0].Name != "up" {
		t.Errorf("Commands = %+v", got)
	}
}

// Without a CommandSet nothing is expanded and the list is empty (not nil: front ends
// encode it as []).
func TestNoCommands(t *testing.T) {
	h := newHarness(t, harnessOpts{}, faux.Reply(faux.Text("ok")))
	h.prompt("/up first")
	h.settle()
	if got := testkit.UserTexts(h.model.Requests()[0]); !reflect.DeepEqual(got, []string{"/up first"}) {
		t.Errorf("user messages = %q", got)
	}
	if got := h.sup.Commands(); got == nil || len(got) != 0 {
		t.Errorf("Commands = %#v, want empty", got)
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
