package mockanthropic

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// DefaultBlockThreshold is how long one event write must take to count as blocked.
const DefaultBlockThreshold = mockhttp.DefaultBlockThreshold

// Server plays a [Script]. Its zero value is not usable; call [New] (for tests, with an
// httptest listener on 127.0.0.1) or [NewHandler] (to serve it yourself). The embedded
// recorder gives it Push, Pending, Release, Requests, WritesBlocked, MaxWriteDuration,
// Client, Close and the BlockThreshold and OnRequest settings.
type Server struct {
	mockhttp.Recorder[Response]
}

// Request is one recorded request.
type Request = mockhttp.Request

// NewHandler returns a server that is not listening; serve it with [Server.ServeHTTP].
func NewHandler(script *Script) *Server {
	s := &Server{}
	s.InitScript(script)
	return s
}

// New starts a server for script on a loopback port. Close it when done.
func New(script *Script) *Server {
	s := NewHandler(script)
	s.Listen(s)
	return s
}

// URL is the base URL clients use: the server root (requests go to /v1/messages), as
// ANTHROPIC_BASE_URL names Anthropic's.
func (s *Server) URL() string { return s.Root() }

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
	t := s.Take(r)
	defer t.Finish()
	if !t.Ok {
		writeError(w, http.StatusInternalServerError, &ErrorBody{Type: "api_error", Message: "mockanthropic: no scripted response left"})
		return
	}
	p := &player{rec: t.Rec, resp: &t.Resp, n: t.N}
	p.Stream = t.Stream(w, r, mockhttp.Pacing{StallAfter: t.Resp.StallAfter, DropAfter: t.Resp.DropAfter, ChunkDelayMs: t.Resp.ChunkDelayMs})
	p.play(w)
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
