package providertest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/llm"
)

// Mock is a provider's side of the tests every provider runs against its mock dialect of
// responses R: how to build the provider, the mock's server and its text response, and
// where the provider's event lists differ. [Mock.Run] runs the shared cases; [Mock.Faults]
// a fault table with the shared HTTP rows; [Mock.Idle] the idle-timeout suite.
type Mock[R any] struct {
	Model    core.Model
	Describe Describer
	// New returns the provider for s (the package's New with s as its Config).
	New func(s llm.Endpoint) (core.Provider, error)
	// Server is the mock's NewHandler: a server for script, not listening.
	Server func(script *mockhttp.Script[R]) *mockhttp.Server[R]
	// Text is the mock's response streaming text in chunks of 2, with faults f.
	Text func(text string, f mockhttp.Faults) R
	// Preamble is how many data events the dialect writes before the first text delta.
	Preamble int
	// NoKeys are the requests the shared no-key case sends without a key (see [NoKey]).
	NoKeys []NoKey[R]
	// KeepAlive is the response of the idle suite's KeepAlive scenario (see [Beats]), the
	// dialect's way of staying alive while silent; KeepAliveName names its subtest, and
	// CheckKeepAlive checks its events (when nil: the text "done" and a clean end).
	KeepAlive      R
	KeepAliveName  string
	CheckKeepAlive func(t *testing.T, got []string)
}

// NoKey is a request sent without an API key to a mock answering Resp, with KeySource
// naming the setting that was empty (none: no key was configured): the error message is
// Want, and the request carried no Header.
type NoKey[R any] struct {
	Name              string
	Resp              R
	KeySource, Header string
	Want              string
}

// MockProvider points s at srv (a mock server, closed when the test ends) and returns the
// provider build makes for it: a test key ("the test's Config") unless s has one, no idle
// timer unless s sets one, srv's client.
func MockProvider[P any](t *testing.T, s llm.Endpoint, srv interface {
	URL() string
	Client() *http.Client
	Close()
}, build func(llm.Endpoint) (P, error)) P {
	t.Helper()
	t.Cleanup(srv.Close)
	s.BaseURL, s.HTTPClient = srv.URL(), srv.Client()
	if s.APIKey == "" {
		s.APIKey, s.KeySource = "test-key", "the test's Config"
	}
	if s.IdleTimeout == 0 {
		s.IdleTimeout = -1
	}
	p, err := build(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Serve starts the mock for responses and returns a provider pointed at it (see
// [MockProvider]) and the mock.
func (m Mock[R]) Serve(t *testing.T, s llm.Endpoint, responses ...R) (core.Provider, *mockhttp.Server[R]) {
	t.Helper()
	srv := m.Server(&mockhttp.Script[R]{Responses: responses}).Start()
	return MockProvider(t, s, srv, m.New), srv
}

// PipeProvider returns a provider with the idle timeout over an in-memory pipe to a mock
// playing resp (see [PipeClient]), so it runs in fake time.
func (m Mock[R]) PipeProvider(t *testing.T, idle time.Duration, resp R) core.Provider {
	t.Helper()
	srv := m.Server(&mockhttp.Script[R]{Responses: []R{resp}})
	p, err := m.New(llm.Endpoint{BaseURL: "http://mock.invalid" + srv.URLSuffix(), APIKey: "k", KeySource: "test",
		IdleTimeout: idle, HTTPClient: PipeClient(t, srv)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Stream streams one "hi" request to a mock playing resp; it returns the described events
// and the final message.
func (m Mock[R]) Stream(t *testing.T, resp R) ([]string, *core.AssistantMessage) {
	t.Helper()
	p, _ := m.Serve(t, llm.Endpoint{}, resp)
	return Run(t, context.Background(), p, HiRequest(m.Model), m.Describe.Event)
}

// Faults runs faults and the rows every provider shares ([Mock.HTTPFaults]; notStream is what
// the provider adds to the error of a 200 that is not an event stream), each streamed by
// [Mock.Stream].
func (m Mock[R]) Faults(t *testing.T, faults []Fault[R], notStream string) {
	faults = append(faults, m.HTTPFaults(notStream)...)
	RunFaults(t, faults, m.Stream)
}

// Run runs the cases every provider shares: cancelling mid-text and before the headers, a
// consumer that stops reading, a refused connection, an unusable base URL, and a request
// sent without a key.
func (m Mock[R]) Run(t *testing.T) {
	req := func() *core.Request { return HiRequest(m.Model) }
	// The mock streams "abcdef" in chunks of 2 and stalls after "cd".
	stalled := func() R { return m.Text("abcdef", mockhttp.Faults{StallAfter: m.Preamble + 2}) }
	t.Run("cancel mid text", func(t *testing.T) {
		p, srv := m.Serve(t, llm.Endpoint{}, stalled())
		CancelMidText.Run(t, p, req(), m.Describe)
		AwaitGone(t, srv.Requests()[0].Gone())
	})
	t.Run("cancel before headers", func(t *testing.T) {
		p, srv := m.Serve(t, llm.Endpoint{}, m.Text("x", mockhttp.Faults{StallBeforeHeaders: true}))
		CancelBeforeHeaders(t, p, req(), m.Describe, func(cancel context.CancelFunc) {
			srv.OnRequest = func(*mockhttp.Request) { cancel() }
		})
		AwaitGone(t, srv.Requests()[0].Gone())
	})
	t.Run("consumer stops", func(t *testing.T) {
		p, srv := m.Serve(t, llm.Endpoint{}, stalled())
		ConsumerStops(t, p, req())
		AwaitGone(t, srv.Requests()[0].Gone())
	})
	t.Run("connection refused", func(t *testing.T) {
		srv := m.Server(nil).Start()
		url := srv.URL()
		srv.Close()
		p, err := m.New(llm.Endpoint{BaseURL: url, APIKey: "k", KeySource: "test", IdleTimeout: -1})
		if err != nil {
			t.Fatal(err)
		}
		_, final := Run(t, context.Background(), p, req(), m.Describe.Event)
		if final.Failure == nil || final.Failure.Kind != core.ErrorRetryable || !strings.HasPrefix(final.ErrorMessage, "Connection error: ") {
			t.Errorf("failure = %+v (%s), want retryable connection error", final.Failure, final.ErrorMessage)
		}
	})
	t.Run("New rejects a bad base URL", func(t *testing.T) {
		for _, u := range []string{"", "api.example.com", "ftp://x"} {
			if _, err := m.New(llm.Endpoint{BaseURL: u}); err == nil {
				t.Errorf("New(%q) succeeded", u)
			}
		}
	})
	for _, nk := range m.NoKeys {
		t.Run("no key: "+nk.Name, func(t *testing.T) {
			srv := m.Server(&mockhttp.Script[R]{Responses: []R{nk.Resp}}).Start()
			defer srv.Close()
			p, err := m.New(llm.Endpoint{BaseURL: srv.URL(), KeySource: nk.KeySource, IdleTimeout: -1, HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			_, final := Run(t, context.Background(), p, req(), m.Describe.Event)
			if final.ErrorMessage != nk.Want {
				t.Errorf("error = %q, want %q", final.ErrorMessage, nk.Want)
			}
			if h := srv.Requests()[0].Header.Get(nk.Header); h != "" {
				t.Errorf("%s = %q, want none", nk.Header, h)
			}
		})
	}
}
