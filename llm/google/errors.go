package google

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
	"github.com/pi-rpc/pi-rpc/llm/internal/idle"
)

// errorBody is Google's error envelope: {"error":{"code":429,"message":...,"status":"RESOURCE_EXHAUSTED","details":[...]}}.
type errorBody struct {
	Error *apiError `json:"error"`
}

type apiError struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Status  string           `json:"status"`
	Details []map[string]any `json:"details"`
}

// The detail types Google's errors carry that the classification reads.
const (
	retryInfoType = "type.googleapis.com/google.rpc.RetryInfo"
	errorInfoType = "type.googleapis.com/google.rpc.ErrorInfo"
)

// failure classifies an error the SDK's stream returned: cancellation, the idle timer, an
// HTTP error status (from what the transport recorded), an error object inside the stream,
// data that is not JSON, or a transport error.
func (p *Provider) failure(s *idle.Stream, ex *exchange, m *mapper, err error) *core.ProviderError {
	if f := s.Interrupted(); f != nil {
		return f
	}
	if ex.status != 0 && (ex.status < 200 || ex.status >= 300) {
		return classifyHTTP(ex.status, ex.header, ex.body, p.cfg.KeySource, p.clock.Now())
	}
	var ae genai.APIError
	if errors.As(err, &ae) {
		return classifyStreamError(&apiError{Code: ae.Code, Message: ae.Message, Status: ae.Status, Details: ae.Details}, p.cfg.KeySource)
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var sp *sdkPanic
	malformed := errors.As(err, &se) || errors.As(err, &te) || errors.As(err, &sp)
	if notData := strings.Contains(err.Error(), "invalid stream chunk"); (malformed || notData) && ex.status != 0 {
		kind := core.ErrorRetryable
		switch {
		case m.chunks == 0 && notData:
			// The body does not start with a data line: the server speaks something else.
			pe := ex.notAStream()
			pe.Message += " (" + err.Error() + ")"
			return pe
		case m.chunks == 0:
			// The first chunk is not Gemini's JSON: a retry will not change that.
			kind = core.ErrorOther
		}
		return &core.ProviderError{Kind: kind, Message: "Provider sent malformed data: " + failure.Truncate(err.Error(), 300)}
	}
	if ex.status != 0 {
		// The response started: its body broke off.
		return &core.ProviderError{Kind: core.ErrorRetryable, Message: "Connection to provider lost mid-stream: " + err.Error()}
	}
	return failure.Transport(err)
}

// classifyHTTP classifies a failed HTTP response as the other providers do: 401/403 and an
// invalid API key are authentication failures naming the key's source; an input over the
// context window is an overflow; 429 RESOURCE_EXHAUSTED, 408, 409, 425 and 5xx are retryable,
// with the delay the server asks for (its RetryInfo detail, else Retry-After); anything else
// is not retried.
func classifyHTTP(status int, header http.Header, body []byte, keySource string, now time.Time) *core.ProviderError {
	var eb errorBody
	var msg string
	switch {
	case json.Unmarshal(body, &eb) == nil && eb.Error != nil && (eb.Error.Message != "" || eb.Error.Status != ""):
		msg = fmt.Sprintf("%d %s", status, failure.Describe(eb.Error.Status, eb.Error.Message))
	case len(strings.TrimSpace(string(body))) == 0:
		msg = fmt.Sprintf("%d status code (no body)", status)
	default:
		eb.Error = nil
		msg = fmt.Sprintf("%d %s: %s", status, http.StatusText(status), failure.Snippet(body))
	}
	e := eb.Error
	if e == nil {
		e = &apiError{}
	}
	pe := &core.ProviderError{Status: status, Message: msg, Kind: kindOf(status, e, msg)}
	if pe.Kind == core.ErrorAuth {
		pe.Message += " (" + keyHint(keySource) + ")"
	}
	if pe.Kind == core.ErrorRetryable {
		if d, ok := retryDelay(e.Details); ok {
			pe.RetryAfter, pe.HasRetryAfter = d, true
		} else if d, ok := failure.ParseRetryAfter(header, now); ok {
			pe.RetryAfter, pe.HasRetryAfter = d, true
		}
	}
	return pe
}

// classifyStreamError classifies an error object sent inside the stream
// (data: {"error":{...}}), which has the HTTP error's shape but no status line.
func classifyStreamError(e *apiError, keySource string) *core.ProviderError {
	msg := "Provider error: " + failure.Describe(e.Status, e.Message)
	if e.Code != 0 {
		msg = fmt.Sprintf("Provider error: %d %s", e.Code, failure.Describe(e.Status, e.Message))
	}
	pe := &core.ProviderError{Message: msg, Kind: kindOf(e.Code, e, msg)}
	if pe.Kind == core.ErrorAuth {
		pe.Message += " (" + keyHint(keySource) + ")"
	}
	if d, ok := retryDelay(e.Details); ok && pe.Kind == core.ErrorRetryable {
		pe.RetryAfter, pe.HasRetryAfter = d, true
	}
	return pe
}

// kindOf classifies by HTTP status (0 when there is none), Google's status name, the error
// details and the message.
func kindOf(status int, e *apiError, msg string) core.ErrorKind {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden ||
		e.Status == "UNAUTHENTICATED" || e.Status == "PERMISSION_DENIED" || invalidKey(e):
		return core.ErrorAuth
	case failure.IsOverflowMessage(msg):
		return core.ErrorOverflow
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout ||
		status == http.StatusConflict || status == 425 || status >= 500,
		e.Status == "RESOURCE_EXHAUSTED", e.Status == "UNAVAILABLE", e.Status == "INTERNAL", e.Status == "DEADLINE_EXCEEDED":
		return core.ErrorRetryable
	case status == 0:
		return failure.ClassifyMessage(msg).Kind
	}
	return core.ErrorOther
}

// invalidKey reports Gemini's answer to a wrong key, a 400 INVALID_ARGUMENT whose ErrorInfo
// reason is API_KEY_INVALID ("API key not valid. Please pass a valid API key.").
func invalidKey(e *apiError) bool {
	for _, d := range e.Details {
		if d["@type"] == errorInfoType && d["reason"] == "API_KEY_INVALID" {
			return true
		}
	}
	return strings.Contains(e.Message, "API key not valid")
}

// retryDelay reads the RetryInfo detail Gemini sends with RESOURCE_EXHAUSTED:
// {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}.
func retryDelay(details []map[string]any) (time.Duration, bool) {
	for _, d := range details {
		if d["@type"] != retryInfoType {
			continue
		}
		s, _ := d["retryDelay"].(string)
		secs, err := strconv.ParseFloat(strings.TrimSuffix(s, "s"), 64)
		if !strings.HasSuffix(s, "s") || err != nil || secs < 0 || secs > 1e9 {
			continue
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	return 0, false
}

// keyHint says where the key came from and, when none was configured, which variables pi-rpc
// reads.
func keyHint(keySource string) string {
	if keySource == "" {
		return "no API key was configured: set GEMINI_API_KEY or GOOGLE_API_KEY"
	}
	return failure.KeyOrigin(keySource, true, nil)
}
