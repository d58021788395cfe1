package piclient_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	piclient "github.com/pi-rpc/pi-rpc/clients/go"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// TestEveryMethodHasATypedCall checks the package doc's promise: every method of the schema's
// method table has a typed call, named after it ($/cancelRequest is sent by cancelling a
// call's context).
func TestEveryMethodHasATypedCall(t *testing.T) {
	client := reflect.TypeFor[*piclient.Client]()
	for _, m := range protocol.MethodTypes {
		if m.Name == protocol.MethodCancelRequest {
			continue
		}
		name := strings.ToUpper(m.Name[:1]) + m.Name[1:]
		if _, ok := client.MethodByName(name); !ok {
			t.Errorf("method %s has no typed call Client.%s", m.Name, name)
		}
	}
}

// entryOf returns the id of the first entry of the given type (and message role).
func entryOf(t *testing.T, entries []protocol.SessionEntry, typ, role string) string {
	t.Helper()
	for _, raw := range entries {
		var e struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			Message struct {
				Role string `json:"role"`
			} `json:"message"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		if e.Type == typ && (role == "" || e.Message.Role == role) {
			return e.ID
		}
	}
	t.Fatalf("no %s %s entry in %d entries", typ, role, len(entries))
	return ""
}

// TestSessionCalls drives every session method through its typed call against the real
// server and checks what each answers.
func TestSessionCalls(t *testing.T) {
	ctx := limitCtx(t)
	s := startServer(t, serverOpts{}, faux.Reply(faux.Text("Hello.")), faux.Reply(faux.Text("Again.")))
	c := s.c
	first := must[*protocol.StateResult](t, "GetState")(c.GetState(ctx))
	if cmds := must[*protocol.ListCommandsResult](t, "ListCommands")(c.ListCommands(ctx)); cmds.Commands == nil || len(cmds.Commands) != 0 {
		t.Errorf("ListCommands of a session without templates or skills = %#v, want []", cmds.Commands)
	}

	name := must[*protocol.SessionNameResult](t, "SetSessionName")(c.SetSessionName(ctx, protocol.SetSessionNameParams{Name: "  demo "}))
	if name.Name != "demo" {
		t.Errorf("SetSessionName answered %q, want the trimmed name", name.Name)
	}
	in := must[*protocol.InputResult](t, "Prompt")(c.Prompt(ctx, protocol.PromptParams{Message: "hi there"}))
	must[*sessionapi.Settled](t, "WaitSettled")(c.WaitSettled(ctx, in.InputID))

	entries := must[*protocol.EntriesResult](t, "GetEntries")(c.GetEntries(ctx, protocol.GetEntriesParams{}))
	user := entryOf(t, entries.Entries, "message", "user")
	page := must[*protocol.EntriesResult](t, "GetEntries")(c.GetEntries(ctx, protocol.GetEntriesParams{Limit: 1}))
	if len(page.Entries) != 1 || page.NextCursor == "" {
		t.Errorf("GetEntries limit 1: %d entries, nextCursor %q", len(page.Entries), page.NextCursor)
	}

	if err := c.SetLabel(ctx, protocol.SetLabelParams{EntryID: user, Label: "start"}); err != nil {
		t.Fatalf("SetLabel: %v", err)
	}
	tree := must[*sessionapi.TreeView](t, "GetTree")(c.GetTree(ctx))
	labelled := false
	for _, n := range tree.Nodes {
		labelled = labelled || (n.ID == user && n.Label == "start")
	}
	if !labelled || tree.LeafID == nil {
		t.Errorf("GetTree: label on %s missing or no leaf: %+v", user, tree)
	}

	stats := must[*sessionapi.Stats](t, "GetSessionStats")(c.GetSessionStats(ctx))
	if stats.SessionID != first.SessionID || stats.UserMessages != 1 || stats.AssistantMessages != 1 {
		t.Errorf("GetSessionStats = %+v", stats)
	}

	nav := must[*sessionapi.NavigateResult](t, "NavigateTree")(c.NavigateTree(ctx, protocol.NavigateTreeParams{EntryID: user}))
	if nav.Text != "hi there" {
		t.Errorf("NavigateTree to the user message: text %q", nav.Text)
	}

	fork := must[*sessionapi.ForkResult](t, "ForkSession")(c.ForkSession(ctx, protocol.ForkSessionParams{EntryID: user}))
	if fork.Text != "hi there" || fork.SessionID == first.SessionID || fork.SessionFile == "" {
		t.Errorf("ForkSession = %+v", fork)
	}
	fresh := must[*sessionapi.SessionRef](t, "NewSession")(c.NewSession(ctx))
	if fresh.SessionID == first.SessionID || fresh.SessionID == fork.SessionID {
		t.Errorf("NewSession reused a session id: %+v", fresh)
	}

	list := must[*protocol.ListSessionsResult](t, "ListSessions")(c.ListSessions(ctx, protocol.ListSessionsParams{}))
	var found *sessionapi.SessionInfo
	for i := range list.Sessions {
		if list.Sessions[i].ID == first.SessionID {
			found = &list.Sessions[i]
		}
	}
	if found == nil || found.Name != "demo" || found.FirstMessage != "hi there" {
		t.Fatalf("ListSessions does not list the first session as named: %+v", list.Sessions)
	}

	opened := must[*sessionapi.SessionRef](t, "OpenSession")(c.OpenSession(ctx, protocol.OpenSessionParams{Session: first.SessionID}))
	if opened.SessionID != first.SessionID || opened.SessionFile != found.File {
		t.Errorf("OpenSession = %+v, want %s at %s", opened, first.SessionID, found.File)
	}

	// Errors come back typed.
	_, err := c.OpenSession(ctx, protocol.OpenSessionParams{Session: "no-such-session"})
	var rerr *piclient.Error
	if !errors.As(err, &rerr) || rerr.Kind() != "notFound" {
		t.Errorf("OpenSession of an unknown id: %v", err)
	}
}

// TestBashCalls runs the user's commands through Bash and AbortBash against the real server.
func TestBashCalls(t *testing.T) {
	ctx := limitCtx(t)
	s := startServer(t, serverOpts{})
	c := s.c

	none := must[*protocol.AbortBashResult](t, "AbortBash")(c.AbortBash(ctx))
	if none.Aborted {
		t.Error("AbortBash with nothing running answered aborted")
	}
	res := must[*sessionapi.BashResult](t, "Bash")(c.Bash(ctx, protocol.BashParams{Command: "echo hi; exit 3"}))
	if res.Output != "hi\n" || res.ExitCode == nil || *res.ExitCode != 3 || res.Cancelled {
		t.Errorf("Bash = %+v", res)
	}

	type outcome struct {
		res *sessionapi.BashResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := c.Bash(ctx, protocol.BashParams{Command: "echo started; sleep 60"})
		done <- outcome{r, err}
	}()
	// The first bash_update with output shows the command is running.
	for {
		ev, _ := waitEvent(ctx, t, c, sessionapi.EventBashUpdate)
		var u protocol.BashUpdateEvent
		if err := ev.Decode(&u); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(u.Output, "started") {
			break
		}
	}
	aborted := must[*protocol.AbortBashResult](t, "AbortBash")(c.AbortBash(ctx))
	if !aborted.Aborted {
		t.Error("AbortBash of a running command answered not aborted")
	}
	select {
	case o := <-done:
		if o.err != nil || !o.res.Cancelled || o.res.ExitCode != nil {
			t.Errorf("aborted Bash = %+v, %v", o.res, o.err)
		}
	case <-ctx.Done():
		t.Fatal("Bash did not answer after AbortBash")
	}
}
