package session_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

func kindOfErr(err error) session.ErrorKind {
	var se *session.Error
	if errors.As(err, &se) {
		return se.Kind
	}
	return ""
}

// The host bounds its live sessions (the adopted first one included), finds a session by id
// or defaults to the first, and takes a closed session out at once.
func TestHostSessions(t *testing.T) {
	first := newHarness(t, harnessOpts{})
	var opened []*harness
	host := session.NewHost(session.HostConfig{MaxSessions: 2, Open: func(req session.OpenRequest) (*session.Opened, error) {
		if req.IDs == nil {
			t.Error("the opener got no id source")
		}
		if req.Cwd == "bad" {
			return nil, &session.Error{Kind: session.KindInvalidState, Message: "cwd bad is not a directory"}
		}
		h := newHarness(t, harnessOpts{sessionID: fmt.Sprintf("session-%d", len(opened)+2)})
		opened = append(opened, h)
		return &session.Opened{Supervisor: h.sup, Cwd: req.Cwd, ContextFiles: []string{"AGENTS.md"}}, nil
	}})
	host.Adopt(&session.Opened{Supervisor: first.sup})
	if _, err := host.Open(session.OpenRequest{Cwd: "bad"}); kindOfErr(err) != session.KindInvalidState {
		t.Fatalf("open with a bad cwd = %v, want invalidState", err)
	}
	second, err := host.Open(session.OpenRequest{Cwd: "sub"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := host.Open(session.OpenRequest{}); err == nil || err.Error() != "Too many sessions: 2 are open (--max-sessions); close one with closeSession first" {
		t.Fatalf("third open = %v, want the max-sessions error", err)
	}
	if sup, err := host.Find(""); err != nil || sup != first.sup {
		t.Fatalf("default session = %v, %v; want the first", sup, err)
	}
	id := second.Supervisor.SessionID()
	if sup, err := host.Find(id); err != nil || sup != second.Supervisor {
		t.Fatalf("Find(%s) = %v, %v", id, sup, err)
	}
	eq(t, "context files", host.ContextFiles(second.Supervisor), []string{"AGENTS.md"})
	closing, err := host.Close(id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := host.Find(id); kindOfErr(err) != session.KindNotFound {
		t.Fatalf("Find after Close = %v, want notFound at once", err)
	}
	<-closing.Done()
	if _, err := closing.Result(); err != nil {
		t.Fatal(err)
	}
	if _, err := host.Open(session.OpenRequest{}); err != nil {
		t.Fatalf("open after a close = %v", err)
	}
	if _, err := host.Close("nope"); kindOfErr(err) != session.KindNotFound {
		t.Fatalf("Close(nope) = %v, want notFound", err)
	}
}

// setModel's orchestration: an unknown model is notFound, one without a key is
// providerNotConfigured, and a usable one switches the session and solves the startup's
// provider problems.
func TestHostSetModel(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	if err := session.NewHost(session.HostConfig{}).SetModel(h.sup, "", "faux-1"); kindOfErr(err) != session.KindProviderNotConfigured {
		t.Fatalf("SetModel without models = %v, want providerNotConfigured", err)
	}
	host := session.NewHost(session.HostConfig{
		Models:   testkit.KeylessCatalogue{Provider: h.model},
		Problems: []session.Problem{{Kind: "noApiKey", Message: "No API key for OpenAI"}},
	})
	if err := host.SetModel(h.sup, "", "missing"); kindOfErr(err) != session.KindNotFound {
		t.Fatalf("SetModel(missing) = %v, want notFound", err)
	}
	if err := host.SetModel(h.sup, "local", "keyless"); kindOfErr(err) != session.KindProviderNotConfigured || err.Error() != "No API key for provider local" {
		t.Fatalf("SetModel(keyless) = %v, want providerNotConfigured", err)
	}
	if len(host.Problems()) != 1 {
		t.Fatal("a failed setModel dropped the problems")
	}
	if err := host.SetModel(h.sup, "", "faux-1"); err != nil {
		t.Fatal(err)
	}
	if len(host.Problems()) != 0 {
		t.Fatalf("problems after a usable model = %v, want none", host.Problems())
	}
	if got := h.sink.ofType("model_changed"); len(got) != 1 {
		t.Fatalf("%d model_changed, want 1", len(got))
	}
}

// keylessModels lists faux-1 and keyless, whose provider has no key.
type keylessModels struct{ testkit.KeylessCatalogue }

func (m keylessModels) List() []core.Model {
	return []core.Model{faux.DefaultModel(), {Provider: "local", ID: "keyless"}}
}

// The available models are the listed ones whose provider resolves without a problem.
func TestHostAvailableModels(t *testing.T) {
	if got := session.NewHost(session.HostConfig{}).AvailableModels(); got != nil {
		t.Fatalf("available models without a catalogue = %v", got)
	}
	host := session.NewHost(session.HostConfig{Models: keylessModels{}})
	if got := len(host.Models()); got != 2 {
		t.Fatalf("%d models, want 2", got)
	}
	got := host.AvailableModels()
	if len(got) != 1 || got[0].ID != "faux-1" {
		t.Fatalf("available models = %v, want faux-1 alone", got)
	}
}

// Open's refusal at MaxSessions is an invalidState *Error that front ends can also tell
// apart with errors.Is, to word it their own way.
func TestHostLimitError(t *testing.T) {
	host := session.NewHost(session.HostConfig{MaxSessions: 1, Open: func(session.OpenRequest) (*session.Opened, error) {
		return nil, errors.New("the opener is not reached")
	}})
	host.Adopt(&session.Opened{Supervisor: newHarness(t, harnessOpts{}).sup})
	_, err := host.Open(session.OpenRequest{})
	if !errors.Is(err, session.ErrTooManySessions) || kindOfErr(err) != session.KindInvalidState {
		t.Fatalf("open past the limit = %v, want ErrTooManySessions and invalidState", err)
	}
	failing := session.NewHost(session.HostConfig{Open: func(session.OpenRequest) (*session.Opened, error) {
		return nil, &session.Error{Kind: session.KindInvalidState, Message: "cwd bad is not a directory"}
	}})
	if _, err := failing.Open(session.OpenRequest{}); errors.Is(err, session.ErrTooManySessions) {
		t.Fatalf("an opener's error = %v is taken for the limit", err)
	}
}

// CloseSession closes the session it is given, not another of the same id: it leaves the
// live ones at once, and its Closed runs once it has closed.
func TestHostCloseSession(t *testing.T) {
	first, twin := newHarness(t, harnessOpts{}), newHarness(t, harnessOpts{})
	released := make(chan struct{})
	host := session.NewHost(session.HostConfig{MaxSessions: 2, Open: func(session.OpenRequest) (*session.Opened, error) {
		return &session.Opened{Supervisor: twin.sup, Closed: func() { close(released) }}, nil
	}})
	host.Adopt(&session.Opened{Supervisor: first.sup})
	o, err := host.Open(session.OpenRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if first.sup.SessionID() != twin.sup.SessionID() {
		t.Fatal("the two sessions should share their id")
	}
	closing := host.CloseSession(t.Context(), o)
	if got := host.Sessions(); len(got) != 1 || got[0] != first.sup {
		t.Fatalf("live sessions after CloseSession = %v, want the first alone", got)
	}
	<-closing.Done()
	if _, err := closing.Result(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-released:
	default:
		t.Fatal("Closed did not run")
	}
	if sup, err := host.Find(first.sup.SessionID()); err != nil || sup != first.sup {
		t.Fatalf("Find = %v, %v; want the first session, still open", sup, err)
	}
}

// ListSaved asks the host's lister; a host without one has no saved sessions.
func TestHostListSaved(t *testing.T) {
	if infos, next, err := session.NewHost(session.HostConfig{}).ListSaved("", "", 10); infos != nil || next != "" || err != nil {
		t.Fatalf("ListSaved without a lister = %v, %q, %v", infos, next, err)
	}
	var asked string
	host := session.NewHost(session.HostConfig{List: func(cwd, cursor string, limit int) ([]sessionapi.SessionInfo, string, error) {
		asked = fmt.Sprintf("%s|%s|%d", cwd, cursor, limit)
		return []sessionapi.SessionInfo{{ID: "s1", Cwd: cwd}}, "next", nil
	}})
	infos, next, err := host.ListSaved("/w", "c", 5)
	if err != nil || len(infos) != 1 || infos[0].ID != "s1" || next != "next" || asked != "/w|c|5" {
		t.Fatalf("ListSaved = %v, %q, %v (asked %q)", infos, next, err, asked)
	}
}
