package openai

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
)

// overflowPatterns are the messages providers use for a request larger than the model's
// context window (pi's patterns). They are matched against the error message we build, which starts
// with the HTTP status, so "400 status code (no body)" is caught as pi catches it.
var overflowPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)prompt is too long`),
	regexp.MustCompile(`(?i)request_too_large`),
	regexp.MustCompile(`(?i)input is too long for requested model`),
	regexp.MustCompile(`(?i)exceeds the context window`),
	regexp.MustCompile(`(?i)input token count.*exceeds the maximum`),
	regexp.MustCompile(`(?i)maximum prompt length is \d+`),
	regexp.MustCompile(`(?i)reduce the length of the messages`),
	regexp.MustCompile(`(?i)maximum context length is \d+ tokens`),
	regexp.MustCompile(`(?i)exceeds the limit of \d+`),
	regexp.MustCompile(`(?i)exceeds the available context size`),
	regexp.MustCompile(`(?i)greater than the context length`),
	regexp.MustCompile(`(?i)context window exceeds limit`),
	regexp.MustCompile(`(?i)exceeded model token limit`),
	regexp.MustCompile(`(?i)too large for model with \d+ maximum context length`),
	regexp.MustCompile(`(?i)model_context_window_exceeded`),
	regexp.MustCompile(`(?i)prompt too long; exceeded (?:max )?context length`),
	regexp.MustCompile(`(?i)context[_ ]length[_ ]exceeded`),
	regexp.MustCompile(`(?i)too many tokens`),
	regexp.MustCompile(`(?i)token limit exceeded`),
	regexp.MustCompile(`(?i)^4(?:00|13)\s*(?:status code)?\s*\(no body\)`),
}

// notOverflowPatterns veto an overflow match: rate limits also talk about "too many tokens".
var notOverflowPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)^(Throttling error|Service unavailable):`),
	regexp.MustCompile(`(?i)rate limit`),
	regexp.MustCompile(`(?i)too many requests`),
}

// retryablePattern is pi's auto-retry regex. It classifies failures that carry no HTTP
// status, such as error objects sent inside an event stream.
var retryablePattern = regexp.MustCompile(`(?i)overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error|connection.?refused|connection.?lost|websocket.?closed|websocket.?error|other side closed|fetch failed|upstream.?connect|reset before headers|socket hang up|ended without|http2 request did not get a response|timed? out|timeout|terminated|retry delay`)

// IsOverflowMessage reports whether an error message says the request exceeded the model's
// context window (pi's message patterns). The session layer uses the typed [core.ErrorOverflow]
// classification; this function exists for messages that have none, such as errors read back
// from a session file.
func IsOverflowMessage(msg string) bool {
	for _, re := range notOverflowPatterns {
		if re.MatchString(msg) {
			return false
		}
	}
	for _, re := range overflowPatterns {
		if re.MatchString(msg) {
			return true
		}
	}
	return false
}

// ParseRetryAfter reads how long the server asked us to wait: retry-after-ms (OpenAI), or
// Retry-After as seconds or an HTTP date relative to now. It reports false when the headers
// carry no usable value, so "no header" and "retry now" stay distinguishable.
func ParseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || math.IsNaN(s) || s > 1e9 {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

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
				info.message += "\n" + truncate(raw, 1000)
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

// classifyHTTP classifies a failed HTTP response: its status, headers and body. keySource
// names where the API key came from, for authentication failures.
func classifyHTTP(status int, header http.Header, body []byte, keySource string, now time.Time) *core.ProviderError {
	info, isJSON := parseErrorBody(body)
	var msg string
	switch {
	case isJSON && info.message != "":
		msg = fmt.Sprintf("%d %s", status, info.message)
	case len(strings.TrimSpace(string(body))) == 0:
		msg = fmt.Sprintf("%d status code (no body)", status)
	default:
		msg = fmt.Sprintf("%d %s: %s", status, http.StatusText(status), snippet(body))
	}
	pe := &core.ProviderError{Status: status, Message: msg}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		pe.Kind = core.ErrorAuth
		pe.Message = msg + " (" + keyOrigin(keySource) + ")"
	case info.code == "context_length_exceeded" || IsOverflowMessage(msg):
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
	if d, ok := ParseRetryAfter(header, now); ok && pe.Kind == core.ErrorRetryable {
		pe.RetryAfter, pe.HasRetryAfter = d, true
	}
	return pe
}

// classifyStreamError classifies an error object the server sent inside the event stream
// (OpenRouter does this when the upstream provider fails mid-response).
func classifyStreamError(data []byte, keySource string) *core.ProviderError {
	info, ok := parseErrorBody(data)
	if !ok || info.message == "" {
		info.message = snippet(data)
	}
	msg := "Provider error: " + info.message
	if s := info.numericCode; s >= 400 && s < 600 {
		pe := classifyHTTP(s, http.Header{}, data, keySource, time.Time{})
		pe.Message = msg
		if pe.Kind == core.ErrorAuth {
			pe.Message += " (" + keyOrigin(keySource) + ")"
		}
		return pe
	}
	return classifyMessage(msg)
}

// classifyMessage classifies a failure known only by its text.
func classifyMessage(msg string) *core.ProviderError {
	pe := &core.ProviderError{Kind: core.ErrorOther, Message: msg}
	switch {
	case IsOverflowMessage(msg):
		pe.Kind = core.ErrorOverflow
	case retryablePattern.MatchString(msg):
		pe.Kind = core.ErrorRetryable
	}
	return pe
}

// keyOrigin says where the API key came from, so that an authentication failure tells the
// user which setting to fix.
func keyOrigin(keySource string) string {
	if keySource == "" {
		return "no API key was configured"
	}
	return "API key from " + keySource
}

// snippet returns the start of a body for an error message, on one line.
func snippet(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	return truncate(s, 200)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
