// Package failure holds what every provider under llm/ shares to classify a failed model
// request as a [core.ProviderError]: pi's context-overflow and retry patterns, Retry-After
// parsing, where an API key came from, and the snippets of bodies that error messages quote.
// Each provider parses its own API's error bodies and calls these helpers.
package failure

import (
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
)

// overflowPatterns are the messages providers use for a request larger than the model's
// context window. They are matched against the error message we build, which starts
// with the HTTP status, so "400 status code (no body)" is caught as pi catches it. The
// patterns (like the two below) are compiled on first use, not at every start.
var overflowPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
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
})

// notOverflowPatterns veto an overflow match: rate limits also talk about "too many tokens".
var notOverflowPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`(?i)^(Throttling error|Service unavailable):`),
		regexp.MustCompile(`(?i)rate limit`),
		regexp.MustCompile(`(?i)too many requests`),
	}
})

// retryablePattern is pi's auto-retry pattern. It classifies failures that carry no HTTP
// status, such as error objects sent inside an event stream.
var retryablePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error|connection.?refused|connection.?lost|websocket.?closed|websocket.?error|other side closed|fetch failed|upstream.?connect|reset before headers|socket hang up|ended without|http2 request did not get a response|timed? out|timeout|terminated|retry delay`)
})

// IsOverflowMessage reports whether an error message says the request exceeded the model's
// context window. The session layer uses the typed [core.ErrorOverflow]
// classification; this function exists for messages that have none, such as errors read back
// from a session file.
func IsOverflowMessage(msg string) bool {
	for _, re := range notOverflowPatterns() {
		if re.MatchString(msg) {
			return false
		}
	}
	for _, re := range overflowPatterns() {
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

// ClassifyMessage classifies a failure known only by its text.
func ClassifyMessage(msg string) *core.ProviderError {
	pe := &core.ProviderError{Kind: core.ErrorOther, Message: msg}
	switch {
	case IsOverflowMessage(msg):
		pe.Kind = core.ErrorOverflow
	case retryablePattern().MatchString(msg):
		pe.Kind = core.ErrorRetryable
	}
	return pe
}

// KeyOrigin says where the credentials of a request came from, so that an authentication
// failure tells the user which setting to fix: keySource ("ANTHROPIC_API_KEY", "models.json
// provider x") when a key was sent; else the configured header that carried credentials;
// else that no key was sent, and which setting was empty.
func KeyOrigin(keySource string, keySent bool, headers map[string]string) string {
	if keySent {
		if keySource == "" {
			return "API key from the provider's configuration"
		}
		return "API key from " + keySource
	}
	for name := range headers {
		switch strings.ToLower(name) {
		case "authorization", "x-api-key", "api-key":
			return "credentials from the configured " + name + " header"
		}
	}
	switch {
	case keySource == "":
		return "no API key was configured"
	case envName().MatchString(keySource):
		return "no API key was sent: " + keySource + " is not set"
	}
	return "no API key was sent: " + keySource + " gives none"
}

// envName matches an environment variable's name.
var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`) })

// LogURL is u as failures name it in the log: without user information or query, where
// credentials may hide.
func LogURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}

// Describe renders a provider's error as "kind: message", or whichever of them is present:
// the kind is the envelope's error type or status ("rate_limit_error", "UNAVAILABLE").
func Describe(kind, msg string) string {
	switch {
	case kind == "":
		return msg
	case msg == "":
		return kind
	}
	return kind + ": " + msg
}

// Snippet returns the start of a body for an error message, on one line.
func Snippet(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	return Truncate(s, 200)
}

func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
