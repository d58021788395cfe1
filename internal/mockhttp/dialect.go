package mockhttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Dialect is one provider's wire as a mock speaks it over a queue of responses of type R:
// the requests it answers and how, the error envelope it answers the rest with, and the
// path its base URL adds to the server root.
type Dialect[R any] struct {
	// URLSuffix is what the base URL adds to the server root ("/v1" for OpenAI, "" for
	// Anthropic, whose clients add /v1 themselves, "/v1beta" for Gemini).
	URLSuffix string
	// Routes are tried in order; a request none matches gets NotFound.
	Routes []Route[R]
	// NotFound answers a request no route matches; Exhausted answers a matched request
	// when no scripted response is left.
	NotFound  func(w http.ResponseWriter, r *http.Request)
	Exhausted func(w http.ResponseWriter)
}

// Route is one kind of request a dialect answers. Match picks the requests; Play writes
// the next scripted response for one (see [Play]). A route with Answer instead answers the requests it
// matches itself, without taking a response or recording them (a listing, or a request the
// provider refuses).
type Route[R any] struct {
	Match  func(r *http.Request) bool
	Play   func(p *Play[R])
	Answer func(w http.ResponseWriter, r *http.Request)
}

// Play is one turn's response as a dialect's player writes it: the [Stream] and the
// [Turn] (the request's record Rec, the scripted response Resp, the turn's number N). Each
// dialect's player embeds it.
type Play[R any] struct {
	*Stream
	*Turn[R]
}

// Post matches a POST whose path ends in suffix.
func Post(suffix string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, suffix)
	}
}

// Server plays a script of responses of type R in one dialect. It embeds the [Recorder], so
// its methods (Push, Pending, Release, Requests, WritesBlocked, ...) are the server's. A
// mock's Server is this type for its Response.
type Server[R any] struct {
	Recorder[R]
	d *Dialect[R]
	// faults returns a response's shared part.
	faults func(*R) *Faults
}

// NewServer returns a server for script (none for a nil script) in dialect d that is not
// listening: serve it with ServeHTTP, or call [Server.Start].
func NewServer[R any, P Faulted[R]](d *Dialect[R], script *Script[R]) *Server[R] {
	s := &Server[R]{d: d, faults: func(r *R) *Faults { return P(r).shared() }}
	s.InitScript(script)
	return s
}

// Start listens on a loopback port (Close shuts it down) and returns s.
func (s *Server[R]) Start() *Server[R] {
	s.Listen(s)
	return s
}

// URL is the base URL clients use: the server root plus the dialect's suffix.
func (s *Server[R]) URL() string { return s.Root() + s.d.URLSuffix }

// Post sends body, as JSON, to the server root plus path (the full path a provider's client
// requests) and returns the response with its body read and closed: what a test of a
// dialect's wire checks.
func (s *Server[R]) Post(path, body string) (*http.Response, string, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, s.Root()+path, strings.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.Client().Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

// CheckStream is what a dialect's wire test checks of its one streamed answer besides the
// bytes: the event-stream Content-Type, and one request recorded, naming model, whose client
// stayed to the end. It returns the first thing wrong, or nil.
func (s *Server[R]) CheckStream(resp *http.Response, model string) error {
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream; charset=utf-8" {
		return fmt.Errorf("Content-Type = %q, want text/event-stream; charset=utf-8", ct)
	}
	if reqs := s.Requests(); len(reqs) != 1 || reqs[0].Decoded["model"] != model || reqs[0].IsGone() {
		return fmt.Errorf("recorded %+v, want one request for model %s, client not gone", reqs, model)
	}
	return nil
}

// URLSuffix is the path the dialect's base URL adds to the server root.
func (s *Server[R]) URLSuffix() string { return s.d.URLSuffix }

// ServeHTTP implements [http.Handler]: the first route that matches answers; a playing
// route takes the next scripted response (the dialect's Exhausted error when none is left).
func (s *Server[R]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for _, rt := range s.d.Routes {
		if !rt.Match(r) {
			continue
		}
		if rt.Answer != nil {
			rt.Answer(w, r)
			return
		}
		t := s.Take(r)
		defer t.Finish()
		if !t.Ok {
			s.d.Exhausted(w)
			return
		}
		rt.Play(&Play[R]{Stream: t.Stream(w, r, s.faults(&t.Resp)), Turn: t})
		return
	}
	s.d.NotFound(w, r)
}

// ErrorWriter is the writeError [Stream.Start] takes for a response scripted with the error
// e: nil, so the response streams, when e is nil; else one that answers with write, the
// dialect's error envelope.
func ErrorWriter[E any](e *E, write func(w http.ResponseWriter, status int, e *E)) func(http.ResponseWriter, int) {
	if e == nil {
		return nil
	}
	return func(w http.ResponseWriter, status int) { write(w, status, e) }
}

// WriteBody answers with status and body, of contentType: a dialect's error envelope or a
// scripted plain body.
func WriteBody(w http.ResponseWriter, status int, contentType, body string) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
