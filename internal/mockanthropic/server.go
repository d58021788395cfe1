package mockanthropic

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

// DefaultBlockThreshold is how long one event write must take to count as blocked.
const DefaultBlockThreshold = 200 * time.Millisecond

// Server plays a [Script]. Its zero value is not usable; call [New] (for tests, with an
// httptest listener on 127.0.0.1) or [NewHandler] (to serve it yourself).
type Server struct {
	// BlockThreshold is the write duration that counts as a blocked write (see
	// WritesBlocked). Set it before the first request.
	BlockThreshold time.Duration
	// OnRequest, when set (before the first request), is called with each request as it is
	// recorded, before the response starts.
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

// URL is the base URL clients use: the server root (requests go to /v1/messages), as
// ANTHROPIC_BASE_URL names Anthropic's.
func (s *Server) URL() string { return s.srv.URL }

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

// WritesBlocked reports whether any event write took longer than BlockThreshold.
func (s *Server) WritesBlocked() bool { return s.blocked.Load() }

// MaxWriteDuration is the longest single event write so far.
func (s *Server) MaxWriteDuration() time.Duration { return time.Duration(s.maxWrite.Load()) }

// ServeHTTP implements [http.Handler]: POST .../v1/messages gets the next scripted response,
// anything else is a 404 with Anthropic's error body.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages") {
		s.messages(w, r)
		return
	}
	writeError(w, http.StatusNotFound, &ErrorBody{Type: "not_found_error", Message: "Not found: " + r.Method + " " + r.URL.Path})
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := &Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, gone: make(chan struct{}), done: make(chan struct{})}
	defer close(rec.done)
	var decoded map[string]any
	if json.Unmarshal(body, &decoded) == nil {
		rec.Decoded = decoded
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	n := len(s.requests)
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
		writeError(w, http.StatusInternalServerError, &ErrorBody{Type: "api_error", Message: "mockanthropic: no scripted response left"})
		return
	}
	p := &player{s: s, w: w, r: r, rec: rec, resp: &resp, release: release, n: n}
	p.play()
}

// writeError writes Anthropic's error envelope.
func writeError(w http.ResponseWriter, status int, e *ErrorBody) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(errorJSON(e)))
}

func errorJSON(e *ErrorBody) string {
	b, _ := json.Marshal(e)
	return `{"type":"error","error":` + string(b) + `,"request_id":"req_mock"}`
}
