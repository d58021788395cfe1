package mockgoogle

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// streamMethod is the method suffix of the path the mock answers.
const streamMethod = ":streamGenerateContent"

// Server plays a [Script] on Gemini's streamGenerateContent wire. Its zero value is not
// usable; call [New] (for tests, with an httptest listener on 127.0.0.1) or [NewHandler] (to
// serve it yourself). It is mockhttp's server for this dialect's responses, with URL, Push,
// Pending, Release, Requests, WritesBlocked, MaxWriteDuration, Client, Close and the
// BlockThreshold and OnRequest settings. Its URL has the API version as pi's models.json gives
// Google's ("https://generativelanguage.googleapis.com/v1beta"): requests go to URL +
// "/models/{model}:streamGenerateContent?alt=sse".
type Server = mockhttp.Server[Response]

// Request is one recorded request.
type Request = mockhttp.Request

// dialect answers POST .../models/{model}:streamGenerateContent?alt=sse with the next
// scripted response; the same without alt=sse is a 400 (this mock speaks only the event
// stream), anything else a 404, both with Google's error body.
var dialect = mockhttp.Dialect[Response]{
	URLSuffix: "/v1beta",
	Routes: []mockhttp.Route[Response]{
		{Match: func(r *http.Request) bool { return isStream(r) && r.URL.Query().Get("alt") != "sse" }, Answer: notSSE},
		{Match: isStream, Play: play},
	},
	NotFound: func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, &ErrorBody{Code: 404, Status: "NOT_FOUND", Message: "Not found: " + r.Method + " " + r.URL.Path})
	},
	Exhausted: func(w http.ResponseWriter) {
		writeError(w, http.StatusInternalServerError, &ErrorBody{Code: 500, Status: "INTERNAL", Message: "mockgoogle: no scripted response left"})
	},
}

// NewHandler returns a server that is not listening; serve it with [Server.ServeHTTP].
func NewHandler(script *Script) *Server { return mockhttp.NewServer(&dialect, script) }

// New starts a server for script on a loopback port. Close it when done.
func New(script *Script) *Server { return mockhttp.NewServer(&dialect, script).Start() }

// ModelOf returns the model a recorded request named in its path.
func ModelOf(r *Request) string {
	_, rest, _ := strings.Cut(r.Path, "/models/")
	return strings.TrimSuffix(rest, streamMethod)
}

// isStream matches POST .../models/{model}:streamGenerateContent.
func isStream(r *http.Request) bool {
	return mockhttp.Post(streamMethod)(r) && strings.Contains(r.URL.Path, "/models/")
}

func notSSE(w http.ResponseWriter, _ *http.Request) {
	writeError(w, http.StatusBadRequest, &ErrorBody{Code: 400, Status: "INVALID_ARGUMENT", Message: "mockgoogle: only ?alt=sse streaming is served"})
}

// writeError writes Google's error envelope.
func writeError(w http.ResponseWriter, status int, e *ErrorBody) {
	mockhttp.WriteBody(w, status, "application/json; charset=UTF-8", errorJSON(e))
}

// errorJSON is {"error":{"code":...,"message":...,"status":...,"details":[...]}}.
func errorJSON(e *ErrorBody) string {
	obj := map[string]any{"code": e.Code, "message": e.Message, "status": e.Status}
	var details []map[string]any
	if e.Reason != "" {
		details = append(details, map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": e.Reason, "domain": "googleapis.com"})
	}
	if e.RetryDelay != "" {
		details = append(details, map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": e.RetryDelay})
	}
	if details != nil {
		obj["details"] = details
	}
	b, _ := json.Marshal(map[string]any{"error": obj})
	return string(b)
}
