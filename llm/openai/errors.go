package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
)

// errorBody is OpenAI's error envelope, with OpenRouter's metadata.raw (the upstream
// provider's own message) and a code that some servers send as a number.
type errorBody struct {
	Error *struct {
		Message  string          `json:"message"`
		Type     string          `json:"type"`
		Code     json.RawMessage `json:"code"`
		Metadata *struct {
			Raw          any    `json:"raw"`
			ProviderName string `json:"provider_name"`
		} `json:"metadata"`
	} `json:"error"`
	// Detail and Message cover servers that answer {"detail": "..."} (vLLM, FastAPI) or
	// {"message": "..."}.
	Detail  any    `json:"detail"`
	Message string `json:"message"`
}

// errorInfo is what an error body says.
type errorInfo struct {
	message string
	code    string
	// numericCode is a code sent as a number, which OpenRouter uses for HTTP-like statuses.
	numericCode int
}

// parseErrorBody extracts the message and code of an error body, or reports false when the
// body is not a JSON error.
func parseErrorBody(body []byte) (errorInfo, bool) {
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err != nil {
		return errorInfo{}, false
	}
	var info errorInfo
	switch {
	case eb.Error != nil:
		info.message = eb.Error.Message
		if len(eb.Error.Code) > 0 && string(eb.Error.Code) != "null" {
			var s string
			if json.Unmarshal(eb.Error.Code, &s) == nil {
				info.code = s
			} else if n, err := strconv.Atoi(string(eb.Error.Code)); err == nil {
				info.numericCode = n
				info.code = string(eb.Error.Code)
			}
		}
		if info.message == "" {
			info.message = eb.Error.Type
		}
		if md := eb.Error.Metadata; md != nil && md.Raw != nil {
			raw, ok := md.Raw.(string)
			if !ok {
				b, _ := json.Marshal(md.Raw)
				raw = string(b)
			}
			if raw != "" {
				info.message += "\n" + failure.Truncate(raw, 1000)
			}
		}
	case eb.Detail != nil:
		if s, ok := eb.Detail.(string); ok {
			info.message = s
		} else {
			b, _ := json.Marshal(eb.Detail)
			info.message = string(b)
		}
	case eb.Message != "":
		info.message = eb.Message
	default:
		return errorInfo{}, false
	}
	return info, true
}

// classifyHTTP classifies a failed HTTP response: its status, headers and body. keyOrigin
// says where the credentials came from ([failure.KeyOrigin]), for authentication failures.
func classifyHTTP(status int, header http.Header, body []byte, keyOrigin string, now time.Time) *core.ProviderError {
	info, isJSON := parseErrorBody(body)
	var msg string
	switch {
	case isJSON && info.message != "":
		msg = fmt.Sprintf("%d %s", status, info.message)
	case len(strings.TrimSpace(string(body))) == 0:
		msg = fmt.Sprintf("%d status code (no body)", status)
	default:
		msg = fmt.Sprintf("%d %s: %s", status, http.StatusText(status), failure.Snippet(body))
	}
	pe := &core.ProviderError{Status: status, Message: msg}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		pe.Kind = core.ErrorAuth
		pe.Message = msg + " (" + keyOrigin + ")"
	case info.code == "context_length_exceeded" || failure.IsOverflowMessage(msg):
		pe.Kind = core.ErrorOverflow
	case status == http.StatusTooManyRequests && info.code == "insufficient_quota":
		// Out of credit: waiting does not help.
		pe.Kind = core.ErrorOther
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout ||
		status == http.StatusConflict || status == 425 || status >= 500:
		pe.Kind = core.ErrorRetryable
	case strings.Contains(strings.ToLower(msg), "overloaded"):
		pe.Kind = core.ErrorRetryable
	default:
		pe.Kind = core.ErrorOther
	}
	if d, ok := failure.ParseRetryAfter(header, now); ok && pe.Kind == core.ErrorRetryable {
		pe.RetryAfter, pe.HasRetryAfter = d, true
	}
	return pe
}

// classifyStreamError classifies an error object the server sent inside the event stream
// (OpenRouter does this when the upstream provider fails mid-response).
func classifyStreamError(data []byte, keyOrigin string) *core.ProviderError {
	info, ok := parseErrorBody(data)
	if !ok || info.message == "" {
		info.message = failure.Snippet(data)
	}
	msg := "Provider error: " + info.message
	if s := info.numericCode; s >= 400 && s < 600 {
		pe := classifyHTTP(s, http.Header{}, data, keyOrigin, time.Time{})
		pe.Message = msg
		if pe.Kind == core.ErrorAuth {
			pe.Message += " (" + keyOrigin + ")"
		}
		return pe
	}
	return failure.ClassifyMessage(msg)
}
