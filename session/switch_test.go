package session_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// fileHarness is a supervisor over file sessions in a temp directory.
func fileHarness(t *testing.T, steps ...faux.Step) (*harness, *session.Catalog) {
	t.Helper()
	dir := t.TempDir()
	cat := &session.Catalog{Root: dir, Dir: filepath.Join(dir, "--w--"), Cwd: "/w", Options: fileOpts()}
	store, err := cat.Create("", nil)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, sink: &recordingSink{}, clock: newFakeClock()}
	h.model = faux.New()
	h.model.SetResponses(steps...)
	h.sup = session.New(session.Config{
		Agent: core.Options{Provider: h.model, Model: h.model.Model()},
		Store: store, Sink: h.sink, Clock: h.clock, Sessions: cat,
		Retry: session.DefaultRetrySettings(), Compaction: session.DefaultCompactionSettings(),
	})
	h.sup.StartSession()
	// Close, not Shutdown: the store's file and lock must be closed before t.TempDir's
	// cleanup removes them (Windows does not delete an open file).
	t.Cleanup(func() { _ = h.sup.Close(t.Context()) })
	return h, cat
}

func userIDs(tv sessionapi.TreeView) []string {
	var out []string
	for _, n := range tv.Nodes {
		if n.Role == core.RoleUser {
			out = append(out, n.ID)
		}
	}
	return out
}

func kindOf(err error) session.ErrorKind {
	var e *session.Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

func TestSessionSwitching(t *testing.T) {
	h, cat := fileHarness(t, textReplies("one", "two", "three", "four")...)
	h.prompt("first")
	h.settle()
	h.prompt("second")
	h.settle()
	first := h.sup.State()
	if _, err := os.Stat(first.SessionFile); err != nil {
		t.Fatalf("session file: %v", err)
	}
	users := userIDs(h.sup.Tree())

	// Labels and the name.
	if err := h.sup.SetLabel(users[0], "start"); err != nil {
		t.Fatal(err)
	}
	if err := h.sup.SetLabel("nope", "x"); kindOf(err) != session.KindNotFound {
		t.Fatalf("label unknown entry: %v", err)
	}
	if name, _ := h.sup.SetSessionName("  my session "); name != "my session" || h.sup.State().SessionName != "my session" {
		t.Fatalf("name %q / %q", name, h.sup.State().SessionName)
	}

	// Fork before the second user message: the branch up to the first reply, labels kept.
	fork, err := h.sup.ForkSession(users[1])
	if err != nil {
		t.Fatal(err)
	}
	if fork.Text != "second" || fork.SessionFile == first.SessionFile {
		t.Fatalf("fork %+v", fork)
	}
	msgs := h.sup.Messages()
	if len(msgs) != 2 {
		t.Fatalf("forked context has %d messages, want 2", len(msgs))
	}
	tree := h.sup.Tree()
	labelled := false
	for _, n := range tree.Nodes {
		if n.ID == users[0] && n.Label == "start" {
			labelled = true
		}
	}
	if !labelled {
		t.Fatal("label not carried into the fork")
	}
	l, _ := session.ReadFile(fork.SessionFile)
	if l.Header.ParentSession != first.SessionFile {
		t.Fatalf("parentSession %q", l.Header.ParentSession)
	}

	// Fork from the first user message: an empty session, no duplicated entries.
	fork2, err := h.sup.ForkSession(users[0])
	if err != nil || fork2.Text != "first" || len(h.sup.Messages()) != 0 {
		t.Fatalf("fork from first: %+v %v, %d messages", fork2, err, len(h.sup.Messages()))
	}

	// Open the first session again by id prefix.
	ref, err := h.sup.OpenSession(first.SessionID[:13])
	if err != nil || ref.SessionID != first.SessionID || len(h.sup.Messages()) != 4 {
		t.Fatalf("open: %+v %v (%d messages)", ref, err, len(h.sup.Messages()))
	}

	// New session.
	nw, err := h.sup.NewSession()
	if err != nil || nw.SessionID == first.SessionID || len(h.sup.Messages()) != 0 {
		t.Fatalf("new: %+v %v", nw, err)
	}
	changes := h.sink.ofType("session_changed")
	var reasons []string
	for _, c := range changes {
		reasons = append(reasons, c["reason"].(string))
		if c["sessionId"] == nil || c["previousSessionId"] == nil {
			t.Fatalf("session_changed without ids: %v", c)
		}
	}
	eq(t, "reasons", reasons, []string{"fork", "fork", "open", "new"})

	// listSessions: newest first, paged.
	infos, next, err := cat.List("", "", 1)
	if err != nil || len(infos) != 1 || next == "" {
		t.Fatalf("list page 1: %v %q %v", infos, next, err)
	}
	rest, next2, err := cat.List("", next, 10)
	if err != nil || next2 != "" || len(rest) != 1 {
		// The new session has no file yet: two files exist (first, and the fork with messages).
		t.Fatalf("list page 2: %+v %q %v", rest, next2, err)
	}
	h.check()
}

func TestSessionMethodsRefusedWhileBusy(t *testing.T) {
	h, _ := fileHarness(t, faux.Step{Content: []faux.Block{faux.Text("never ends")}, Hang: true, HangAfter: 1})
	h.prompt("hang")
	if _, err := h.sup.NewSession(); kindOf(err) != session.KindBusy {
		t.Fatalf("newSession while busy: %v", err)
	}
	if _, err := h.sup.OpenSession("x"); kindOf(err) != session.KindBusy {
		t.Fatalf("openSession while busy: %v", err)
	}
	if _, err := h.sup.ForkSession("x"); kindOf(err) != session.KindBusy {
		t.Fatalf("forkSession while busy: %v", err)
	}
	if _, err := result(h.sup.NavigateTree(session.Navigation{EntryID: "x", Summarize: false})); kindOf(err) != session.KindBusy {
		t.Fatalf("navigateTree while busy: %v", err)
	}
	h.sup.Abort()
	h.settle()
}

func TestOpenSessionLockedByAnotherStore(t *testing.T) {
	h, cat := fileHarness(t, textReplies("a")...)
	other, err := cat.Create("", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = other.Append(userEntry("held elsewhere"))
	defer other.Close()
	_, err = h.sup.OpenSession(other.File())
	if kindOf(err) != session.KindInvalidState || !session.IsLocked(errors.Unwrap(err)) && err.Error() != (&session.LockedError{PID: os.Getpid()}).Error() {
		t.Fatalf("open locked: %v", err)
	}
}

func TestNavigateTree(t *testing.T) {
	h, _ := fileHarness(t, append(textReplies("one", "two"), faux.Reply(faux.Text("branch summary text")), faux.Reply(faux.Text("three")))...)
	h.prompt("first")
	h.settle()
	h.prompt("second")
	h.settle()
	users := userIDs(h.sup.Tree())

	// Navigating to a user message: the leaf is its parent and its text comes back.
	res, err := result(h.sup.NavigateTree(session.Navigation{EntryID: users[1], Summarize: false}))
	if err != nil || res.Text != "second" || len(h.sup.Messages()) != 2 {
		t.Fatalf("navigate: %+v %v (%d messages)", res, err, len(h.sup.Messages()))
	}
	// To the first user message: the leaf is the entry before it (the session's initial
	// thinking level, as in pi's files) and the context is empty.
	res, err = result(h.sup.NavigateTree(session.Navigation{EntryID: users[0], Summarize: false}))
	if err != nil || res.LeafID == nil || *res.LeafID != h.sup.Tree().Nodes[1].ID || len(h.sup.Messages()) != 0 {
		t.Fatalf("navigate to root: %+v %v", res, err)
	}
	// Back to the end with a summary of the (empty) branch left: nothing to summarise.
	tree := h.sup.Tree()
	last := tree.Nodes[len(tree.Nodes)-1].ID
	if _, err := result(h.sup.NavigateTree(session.Navigation{EntryID: last, Summarize: true})); err != nil {
		t.Fatal(err)
	}
	// Now leave the full branch with a summary.
	res, err = result(h.sup.NavigateTree(session.Navigation{EntryID: users[1], Summarize: true}))
	if err != nil || res.SummaryEntryID == "" {
		t.Fatalf("navigate with summary: %+v %v", res, err)
	}
	msgs := h.sup.Messages()
	bs, ok := msgs[len(msgs)-1].(*core.BranchSummaryMessage)
	if !ok || bs.Summary == "" {
		t.Fatalf("last message %T, want the branch summary", msgs[len(msgs)-1])
	}
	if _, err := result(h.sup.NavigateTree(session.Navigation{EntryID: "missing", Summarize: false})); kindOf(err) != session.KindNotFound {
		t.Fatalf("navigate unknown: %v", err)
	}
	// getEntries pages the branch.
	page, err := h.sup.BranchEntries("", 2)
	if err != nil || len(page.Entries) != 2 || page.NextCursor == "" {
		t.Fatalf("page: %+v %v", page, err)
	}
	rest, err := h.sup.BranchEntries(page.NextCursor, 0)
	if err != nil || rest.NextCursor != "" || len(rest.Entries) == 0 {
		t.Fatalf("rest: %+v %v", rest, err)
	}
	// Stats count the whole file, as pi 1.6.0 does: both branches' messages (the branch
	// summary is an entry of its own, not a message).
	st := h.sup.Stats()
	if st.UserMessages != 2 || st.AssistantMessages != 2 || st.TotalMessages != 4 {
		t.Fatalf("stats %+v", st)
	}
	h.check()
}

func TestContinueSkipsLockedNewest(t *testing.T) {
	dir := t.TempDir()
	cat := &session.Catalog{Root: dir, Dir: dir, Cwd: "/w", Options: fileOpts()}
	mk := func(text string) session.Store {
		st, err := cat.Create("", nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = st.Append(userEntry(text))
		return st
	}
	older := mk("older")
	_ = older.Close()
	newer := mk("newer")
	defer newer.Close()
	// Make the held one newest by mtime regardless of creation order.
	future := epoch.AddDate(10, 0, 0)
	_ = os.Chtimes(newer.File(), future, future)
	got, err := cat.Continue()
	if err != nil || got == nil || got.File() != older.File() {
		t.Fatalf("continue = %v, %v; want the older, unlocked session", got, err)
	}
	_ = got.Close()
	_ = newer.Close()
	got, err = cat.Continue()
	if err != nil || got.File() != newer.File() {
		t.Fatalf("continue after release = %v, %v", got, err)
	}
	_ = got.Close()
}
