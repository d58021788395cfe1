package mockhttp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultBlockThreshold is how long one stream write must take to count as blocked.
const DefaultBlockThreshold = 200 * time.Millisecond

// Recorder holds a mock's queue of scripted responses of type R, records every request, and
// owns the listener. A mock's Server embeds it, so its methods are the mock's. Call
// [Recorder.Init] before use.
type Recorder[R any] struct {
	// BlockThreshold is the write duration that counts as a blocked write (see
	// WritesBlocked). Set it before the first request.
	BlockThreshold time.Duration
	// OnRequest, when set (before the first request), is called with each request as it is
	// recorded, before the response starts: tests use it to act at a known point without
	// polling.
	OnRequest func(*Request)

	mu       sync.Mutex
	queue    []R
	requests []*Request
	release  chan struct{}
	released bool

	blocked  atomic.Bool
	maxWrite atomic.Int64
	srv      *httptest.Server
}

// Init readies the recorder with the script's responses.
func (s *Recorder[R]) Init(responses []R) {
	s.BlockThreshold = DefaultBlockThreshold
	s.release = make(chan struct{})
	s.queue = append(s.queue, responses...)
}

// Listen serves h on a loopback port.
func (s *Recorder[R]) Listen(h http.Handler) { s.srv = httptest.NewServer(h) }

// Root is the listening server's root URL.
func (s *Recorder[R]) Root() string { return s.srv.URL }

// Client returns an HTTP client for the server.
func (s *Recorder[R]) Client() *http.Client { return s.srv.Client() }

// Close releases stalls and shuts the server down.
func (s *Recorder[R]) Close() {
	s.Release()
	if s.srv != nil {
		s.srv.CloseClientConnections()
		s.srv.Close()
	}
}

// Push appends responses to the script's queue.
func (s *Recorder[R]) Push(rs ...R) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, rs...)
}

// Pending reports how many scripted responses are left.
func (s *Recorder[R]) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Release ends every stall, current and future.
func (s *Recorder[R]) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.released {
		s.released = true
		close(s.release)
	}
}

// Requests returns the requests received so far, in order.
func (s *Recorder[R]) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// WritesBlocked reports whether any stream write took longer than BlockThreshold.
func (s *Recorder[R]) WritesBlocked() bool { return s.blocked.Load() }

// MaxWriteDuration is the longest single stream write so far.
func (s *Recorder[R]) MaxWriteDuration() time.Duration { return time.Duration(s.maxWrite.Load()) }

// Turn is one request taken off the wire: its record, the scripted response it gets (Ok is
// false when the script is exhausted) and its 1-based number.
type Turn[R any] struct {
	Rec  *Request
	Resp R
	Ok   bool
	N    int

	release chan struct{}
	s       *Recorder[R]
}

// Take records r, pops the next scripted response and calls OnRequest. The caller must call
// the returned turn's Finish when it is done with the request.
func (s *Recorder[R]) Take(r *http.Request) *Turn[R] {
	body, _ := io.ReadAll(r.Body)
	rec := &Request{Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body, gone: make(chan struct{}), done: make(chan struct{})}
	var decoded map[string]any
	if json.Unmarshal(body, &decoded) == nil {
		rec.Decoded = decoded
	}
	t := &Turn[R]{Rec: rec, s: s}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	t.N = len(s.requests)
	if len(s.queue) > 0 {
		t.Resp, t.Ok = s.queue[0], true
		s.queue = s.queue[1:]
	}
	t.release = s.release
	s.mu.Unlock()
	if s.OnRequest != nil {
		s.OnRequest(rec)
	}
	return t
}

// Finish marks the request handled (its Done channel closes).
func (t *Turn[R]) Finish() { close(t.Rec.done) }

// Stream returns the writer for this turn's response, paced and faulted as f says.
func (t *Turn[R]) Stream(w http.ResponseWriter, r *http.Request, f *Faults) *Stream {
	return &Stream{w: w, r: r, rec: t.Rec, release: t.release, f: f, note: t.s.noteWrite}
}

func (s *Recorder[R]) noteWrite(d time.Duration) {
	for {
		cur := s.maxWrite.Load()
		if int64(d) <= cur || s.maxWrite.CompareAndSwap(cur, int64(d)) {
			break
		}
	}
	if d > s.BlockThreshold {
		s.blocked.Store(true)
	}
}

// InitScript readies the recorder with script's responses (none for a nil script).
func (s *Recorder[R]) InitScript(script *Script[R]) {
	var rs []R
	if script != nil {
		rs = script.Responses
	}
	s.Init(rs)
}
