package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
)

// StatusOverloaded is the status Anthropic answers when its servers are overloaded.
const StatusOverloaded = 529

// errorBody is Anthropic's error envelope: {"type":"error","error":{"type":...,"message":...}}.
type errorBody struct {
	Type  string `json:"type"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// parseErrorBody extracts the error type and message, or reports false when the body is not
// Anthropic's error envelope.
func parseErrorBody(body []byte) (typ, msg string, ok bool) {
	var eb errorBody
	if json.Unmarshal(body, &eb) != nil || eb.Error == nil {
		return "", "", false
	}
	return eb.Error.Type, eb.Error.Message, eb.Error.Type != "" || eb.Error.Message != ""
}

// classifyHTTP classifies a failed HTTP response as the OpenAI provider does: 401/403 are
// authentication failures naming the key's origin ([failure.KeyOrigin]); a prompt over the context window is an
// overflow; 429, 529 (overloaded), 408, 409, 425 and other 5xx are retryable, with the
// server's Retry-After; anything else is not retried.
func classifyHTTP(status int, header http.Header, body []byte, keyOrigin string, now time.Time) *core.ProviderError {
	typ, text, isJSON := parseErrorBody(body)
	var msg string
	switch {
	case isJSON:
		msg = fmt.Sprintf("%d %s", status, failure.Describe(typ, text))
	case len(strings.TrimSpace(string(body))) == 0:
		msg = fmt.Sprintf("%d status code (no body)", status)
	default:
		statusText := http.StatusText(status)
		if status == StatusOverloaded {
			statusText = "Overloaded"
		}
		msg = fmt.Sprintf("%d %s: %s", status, statusText, failure.Snippet(body))
	}
	pe := &core.ProviderError{Status: status, Message: msg, Kind: kindOf(status, typ, msg)}
	if pe.Kind == core.ErrorAuth {
		pe.Message = msg + " (" + keyOrigin + ")"
	}
	if d, ok := failure.ParseRetryAfter(header, now); ok && pe.Kind == core.ErrorRetryable {
		pe.RetryAfter, pe.HasRetryAfter = d, true
	}
	return pe
}

// kindOf classifies by HTTP status (0 when there is none), Anthropic error type and message.
func kindOf(status int, typ, msg string) core.ErrorKind {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden ||
		typ == "authentication_error" || typ == "permission_error":
		return core.ErrorAuth
	case failure.IsOverflowMessage(msg):
		return core.ErrorOverflow
	case typ == "billing_error":
		// Out of credit: waiting does not help.
		return core.ErrorOther
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout ||
		status == http.StatusConflict || status == 425 || status >= 500,
		typ == "overloaded_error", typ == "rate_limit_error", typ == "api_error", typ == "timeout_error":
		return core.ErrorRetryable
	case status == 0:
		return failure.ClassifyMessage(msg).Kind
	}
	return core.ErrorOther
}

// classifyStreamError classifies an error event sent inside the stream, such as
// {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}.
func classifyStreamError(e *event, data []byte, keyOrigin string) *core.ProviderError {
	typ, text := e.Error.Type, e.Error.Message
	if typ == "" && text == "" {
		text = failure.Snippet(data)
	}
	msg := "Provider error: " + failure.Describe(typ, text)
	pe := &core.ProviderError{Message: msg, Kind: kindOf(0, typ, msg)}
	if pe.Kind == core.ErrorAuth {
		pe.Message += " (" + keyOrigin + ")"
	}
	return pe
}
