package mockopenai

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// Server plays a [Script] on OpenAI's two wires. Its zero value is not usable; call [New] (for
// tests, with an httptest listener on 127.0.0.1) or [NewHandler] (to serve it yourself). It is
// mockhttp's server for this dialect's responses, with URL, Push, Pending, Release, Requests,
// WritesBlocked, MaxWriteDuration, Client, Close and the BlockThreshold and OnRequest
// settings.
type Server = mockhttp.Server[Response]

// Request is one recorded request.
type Request = mockhttp.Request

// dialect answers POST .../chat/completions (Chat Completions) and POST .../responses (the
// Responses API) with the next scripted response, GET .../models with one model, anything
// else with a 404.
var dialect = mockhttp.Dialect[Response]{
	URLSuffix: "/v1",
	Routes: []mockhttp.Route[Response]{
		{Match: mockhttp.Post("/chat/completions"), Play: playChat},
		{Match: mockhttp.Post("/responses"), Play: playResponses},
		{Match: func(r *http.Request) bool {
			return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models")
		}, Answer: models},
	},
	NotFound: func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, &ErrorBody{Message: "Unknown request URL: " + r.Method + " " + r.URL.Path, Type: "invalid_request_error", Code: "unknown_url"})
	},
	Exhausted: func(w http.ResponseWriter) {
		writeError(w, http.StatusInternalServerError, &ErrorBody{Message: "mockopenai: no scripted response left", Type: "server_error"})
	},
}

// NewHandler returns a server that is not listening; serve it with [Server.ServeHTTP].
func NewHandler(script *Script) *Server { return mockhttp.NewServer(&dialect, script) }

// New starts a server for script on a loopback port. Close it when done.
func New(script *Script) *Server { return mockhttp.NewServer(&dialect, script).Start() }

// models lists the one model the mock serves.
func models(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"mock","object":"model","created":1700000000,"owned_by":"mockopenai"}]}`)
}

// writeError writes OpenAI's error envelope.
func writeError(w http.ResponseWriter, status int, e *ErrorBody) {
	b, _ := json.Marshal(map[string]any{"error": e})
	mockhttp.WriteBody(w, status, "application/json", string(b))
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
