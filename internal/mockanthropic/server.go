package mockanthropic

import (
	"encoding/json"
	"net/http"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// Server plays a [Script] on Anthropic's Messages wire. Its zero value is not usable; call
// [New] (for tests, with an httptest listener on 127.0.0.1) or [NewHandler] (to serve it
// yourself). It is mockhttp's server for this dialect's responses, with URL, Push, Pending,
// Release, Requests, WritesBlocked, MaxWriteDuration, Client, Close and the BlockThreshold and
// OnRequest settings. Its URL is the server root (requests go to /v1/messages), as
// ANTHROPIC_BASE_URL names Anthropic's.
type Server = mockhttp.Server[Response]

// Request is one recorded request.
type Request = mockhttp.Request

// dialect answers POST .../v1/messages with the next scripted response, anything else with
// a 404 in Anthropic's error body.
var dialect = mockhttp.Dialect[Response]{
	Routes: []mockhttp.Route[Response]{{Match: mockhttp.Post("/v1/messages"), Play: play}},
	NotFound: func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, &ErrorBody{Type: "not_found_error", Message: "Not found: " + r.Method + " " + r.URL.Path})
	},
	Exhausted: func(w http.ResponseWriter) {
		writeError(w, http.StatusInternalServerError, &ErrorBody{Type: "api_error", Message: "mockanthropic: no scripted response left"})
	},
}

// NewHandler returns a server that is not listening; serve it with [Server.ServeHTTP].
func NewHandler(script *Script) *Server { return mockhttp.NewServer(&dialect, script) }

// New starts a server for script on a loopback port. Close it when done.
func New(script *Script) *Server { return mockhttp.NewServer(&dialect, script).Start() }

// writeError writes Anthropic's error envelope.
func writeError(w http.ResponseWriter, status int, e *ErrorBody) {
	mockhttp.WriteBody(w, status, "application/json", errorJSON(e))
}

func errorJSON(e *ErrorBody) string {
	b, _ := json.Marshal(e)
	return `{"type":"error","error":` + string(b) + `,"request_id":"req_mock"}`
}
