package mockopenai

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultBlockThreshold is how long one chunk write must take to count as blocked.
const DefaultBlockThreshold = 200 * time.Millisecond

// Server plays a [Script]. Its zero value is not usable; call [New] (for tests, with an
// httptest listener on 127.0.0.1) or [NewHandler] (to serve it yourself).
type Server struct {
	// BlockThreshold is the write duration that counts as a blocked write (see
	// WritesBlocked). Set it before the first request.
	BlockThreshold time.Duration
	// OnRequest, when set (before the first request), is called with each request as it is
	// recorded, before the response starts: tests use it to act at a known point without
	// polling.
	OnRequest func(*Request)

	mu       sync.Mutex
	queue    []Response
	requests []*Request
	release  chan struct{}
	released bool

	blocked  atomic.Bool
	maxWrite atomic.Int64
	srv      *httptest.Server
}

// Request is one recorded request.
type Request struct {
	Path   string
	Header http.Header
	// Body is the raw request body; Decoded is the same body decoded (nil if not JSON).
	Body    []byte
	Decoded map[string]any

	gone     chan struct{}
	goneOnce sync.Once
	done     chan struct{}
}

// Gone is closed when the client went away before its response was complete.
func (r *Request) Gone() <-chan struct{} { return r.gone }

// Done is closed when the server finished handling the request.
func (r *Request) Done() <-chan struct{} { return r.done }

// IsGone reports whether the client went away before its response was complete.
func (r *Request) IsGone() bool {
	select {
	case <-r.gone:
		return true
	default:
		return false
	}
}

func (r *Request) markGone() { r.goneOnce.Do(func() { close(r.gone) }) }

// NewHandler returns a server that is not listening; serve it with [Server.ServeHTTP].
func NewHandler(script *Script) *Server {
	s := &Server{BlockThreshold: DefaultBlockThreshold, release: make(chan struct{})}
	if script != nil {
		s.queue = append(s.queue, script.Responses...)
	}
	return s
}

// New starts a server for script on a loopback port. Close it when done.
func New(script *Script) *Server {
	s := NewHandler(script)
	s.srv = httptest.NewServer(s)
	return s
}

// URL is the base URL clients use: the server root plus "/v1".
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Client returns an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Close releases stalls and shuts the server down.
func (s *Server) Close() {
	s.Release()
	if s.srv != nil {
		s.srv.CloseClientConnections()
		s.srv.Close()
	}
}

// Push appends responses to the script's queue.
func (s *Server) Push(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, rs...)
}

// Pending reports how many scripted responses are left.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Release ends every stall, current and future.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.released {
		s.released = true
		close(s.release)
	}
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// WritesBlocked reports whether any chunk write took longer than BlockThreshold.
func (s *Server) WritesBlocked() bool { return s.blocked.Load() }

// MaxWriteDuration is the longest single chunk write so far.
func (s *Server) MaxWriteDuration() time.Duration { return time.Duration(s.maxWrite.Load()) }

// ServeHTTP implements [http.Handler]: chat completions get the next scripted response,
// GET .../models lists one model, anything else is 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		s.chat(w, r)
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"mock","object":"model","created":1700000000,"owned_by":"mockopenai"}]}`)
	default:
		writeError(w, http.StatusNotFound, &ErrorBody{Message: "Unknown request URL: " + r.Method + " " + r.URL.Path, Type: "invalid_request_error", Code: "unknown_url"})
	}
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := &Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, gone: make(chan struct{}), done: make(chan struct{})}
	defer close(rec.done)
	var decoded map[string]any
	if json.Unmarshal(body, &decoded) == nil {
		rec.Decoded = decoded
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	var resp Response
	ok := len(s.queue) > 0
	if ok {
		resp = s.queue[0]
		s.queue = s.queue[1:]
	}
	release := s.release
	s.mu.Unlock()
	if s.OnRequest != nil {
		s.OnRequest(rec)
	}
	if !ok {
		writeError(w, http.StatusInternalServerError, &ErrorBody{Message: "mockopenai: no scripted response left", Type: "server_error"})
		return
	}
	p := &player{s: s, w: w, r: r, rec: rec, resp: &resp, release: release}
	p.play()
}

func writeError(w http.ResponseWriter, status int, e *ErrorBody) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": e})
	_, _ = w.Write(b)
}
