package mockopenai

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// DefaultBlockThreshold is how long one chunk write must take to count as blocked.
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
	var rs []Response
	if script != nil {
		rs = script.Responses
	}
	s.Init(rs)
	return s
}

// New starts a server for script on a loopback port. Close it when done.
func New(script *Script) *Server {
	s := NewHandler(script)
	s.Listen(s)
	return s
}

// URL is the base URL clients use: the server root plus "/v1".
func (s *Server) URL() string { return s.Root() + "/v1" }

// ServeHTTP implements [http.Handler]: chat completions and responses (the Responses API)
// get the next scripted response, GET .../models lists one model, anything else is 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		s.chat(w, r)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		s.responses(w, r)
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"mock","object":"model","created":1700000000,"owned_by":"mockopenai"}]}`)
	default:
		writeError(w, http.StatusNotFound, &ErrorBody{Message: "Unknown request URL: " + r.Method + " " + r.URL.Path, Type: "invalid_request_error", Code: "unknown_url"})
	}
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	t := s.Take(r)
	defer t.Finish()
	if !t.Ok {
		writeError(w, http.StatusInternalServerError, &ErrorBody{Message: "mockopenai: no scripted response left", Type: "server_error"})
		return
	}
	p := &player{rec: t.Rec, resp: &t.Resp, n: t.N}
	p.Stream = t.Stream(w, r, mockhttp.Pacing{StallAfter: t.Resp.StallAfter, DropAfter: t.Resp.DropAfter, ChunkDelayMs: t.Resp.ChunkDelayMs, ChunkIntervalUs: t.Resp.ChunkIntervalUs})
	p.play()
}

func writeError(w http.ResponseWriter, status int, e *ErrorBody) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": e})
	_, _ = w.Write(b)
}

// ToolNames lists the names of the tools a Chat Completions request offers, in its order.
func ToolNames(r *Request) []string {
	var names []string
	tools, _ := r.Decoded["tools"].([]any)
	for _, tool := range tools {
		fn, _ := tool.(map[string]any)["function"].(map[string]any)
		if name, ok := fn["name"].(string); ok {
			names = append(names, name)
		}
	}
	return names
}
