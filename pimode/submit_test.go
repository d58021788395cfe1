package pimode

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// pi answers a started prompt before its agent_start and a queued steer after its
// queue_update. The session emits an input's events as soon as it accepts it, on the run's
// goroutine too, so the test takes the worst case: inside the input method, after the
// session accepted the input, it waits (synctest.Wait) until every other goroutine is idle,
// so the run has emitted what it can and the writer has written whatever it was free to
// write. The responses must still land in their places.
func TestSubmitPlacesTheResponseAmongTheInputsEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		s, sup, collect := heldServer(t, release)
		worstCase := func(a sessionapi.Accepted, err error) (sessionapi.Accepted, error) {
			synctest.Wait()
			return a, err
		}
		if err := s.submit(&request{id: json.RawMessage(`"1"`), typ: "prompt"}, func() (sessionapi.Accepted, error) {
			return worstCase(sup.Prompt(session.PromptRequest{Message: "hi"}))
		}); err != nil {
			t.Fatal(err)
		}
		if err := s.submit(&request{id: json.RawMessage(`"2"`), typ: "steer"}, func() (sessionapi.Accepted, error) {
			return worstCase(sup.Steer(session.QueueRequest{Message: "look"}))
		}); err != nil {
			t.Fatal(err)
		}
		close(release)
		if _, err := sup.WaitSettled(context.Background(), ""); err != nil {
			t.Fatal(err)
		}
		wire := wireLines{t: t, got: collect()}
		prompt := wire.at(`{"id":"1","type":"response","command":"prompt","success":true,"data":{"disposition":"started"}}`)
		steer := wire.at(`{"id":"2","type":"response","command":"steer","success":true,"data":{"disposition":"queued"}}`)
		if prompt != 0 || wire.index("agent_start") != 1 {
			t.Fatalf("the prompt's response is not before its agent_start: %v", wire.outline())
		}
		if queue := wire.index("queue_update"); steer != queue+1 {
			t.Fatalf("the steer's response is not right after its queue_update: %v", wire.outline())
		}
	})
}

// heldServer is a server over one session whose first reply waits for release (then a
// second, "steered"), writing to a pipe; collect closes the writer and returns the lines
// written.
func heldServer(t *testing.T, release chan struct{}) (s *Server, sup *session.Supervisor, collect func() []string) {
	t.Helper()
	pr, pw := io.Pipe()
	w := NewWriter(pw, 1<<20, testLogger())
	lines := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		lines <- got
	}()
	model := faux.New()
	model.SetResponses(faux.HeldAt(faux.Reply(faux.Text("hello")), 0, release), faux.Reply(faux.Text("steered")))
	sup = session.New(session.Config{
		Agent: core.Options{Provider: model, Model: model.Model()},
		Store: testkit.MemoryStore("session-1", testkit.Epoch),
		Sink:  w,
	})
	host := session.NewHost(session.HostConfig{})
	host.Adopt(&session.Opened{Supervisor: sup})
	s, err := NewServer(Options{Host: host, Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	collect = func() []string {
		w.Close(hangTimeout)
		_ = pw.Close()
		return <-lines
	}
	return s, sup, collect
}

// wireLines finds records in the lines a pi-mode server wrote.
type wireLines struct {
	t   *testing.T
	got []string
}

// outline is the wire in short: each record's type, and a response's command.
func (l wireLines) outline() []string {
	var out []string
	for _, line := range l.got {
		var m map[string]any
		_ = json.Unmarshal([]byte(line), &m)
		out = append(out, fmt.Sprint(m["type"], " ", m["command"]))
	}
	return out
}

// at is the index of the line want.
func (l wireLines) at(want string) int {
	l.t.Helper()
	i := slices.IndexFunc(l.got, func(line string) bool { return line == want })
	if i < 0 {
		l.t.Fatalf("no line %s in %v", want, l.outline())
	}
	return i
}

// index is the index of the first record of type typ.
func (l wireLines) index(typ string) int {
	l.t.Helper()
	i := slices.IndexFunc(l.got, func(line string) bool {
		var m map[string]any
		return json.Unmarshal([]byte(line), &m) == nil && m["type"] == typ
	})
	if i < 0 {
		l.t.Fatalf("no %s in %v", typ, l.outline())
	}
	return i
}
