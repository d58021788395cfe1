// Package llm holds what the model providers below it (llm/openai, llm/anthropic,
// llm/google) take alike: the [Endpoint] each one's Config embeds (where to send requests, the
// key and where it came from, the idle timeout, the HTTP client and the clock), and the
// checks and defaults they all apply to it ([Endpoint.Resolve]). Nothing here reads the
// environment: the binary resolves every setting and passes it in.
package llm

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
	"github.com/pi-rpc/pi-rpc/llm/internal/idle"
)

// DefaultIdleTimeout is how long a response may stay silent before the stream fails
// (docs/configuration.md, --idle-timeout).
const DefaultIdleTimeout = idle.DefaultTimeout

// Endpoint is the part of a provider's Config that every provider has. Each provider's New
// says what its BaseURL looks like and how it sends APIKey.
type Endpoint struct {
	// BaseURL is the API root. Required: an absolute http or https URL.
	BaseURL string
	// APIKey is the credential, sent as the provider's API expects when non-empty.
	APIKey string
	// KeySource says where APIKey came from ("ANTHROPIC_API_KEY", "models.json provider
	// x"), so that an authentication failure names the setting to fix; with no APIKey it is
	// the setting that was empty.
	KeySource string
	// Headers are added to every request (models.json provider headers).
	Headers map[string]string
	// IdleTimeout is how long the server may stay silent, waiting for headers or between
	// body bytes, before the stream fails with a retryable error. Zero means
	// [DefaultIdleTimeout]; negative disables the timer.
	IdleTimeout time.Duration
	// HTTPClient sends the requests; nil means a client with no overall timeout (a streamed
	// response may legitimately last many minutes; the idle timer bounds silence instead).
	HTTPClient *http.Client
	// Clock stamps messages, dates Retry-After and times the idle timer; nil means
	// [clock.System].
	Clock clock.Clock
}

// Resolved is an [Endpoint] made ready for a provider's client.
type Resolved struct {
	// URL is the parsed base URL, absolute and http or https.
	URL *url.URL
	// Client is a copy of Endpoint.HTTPClient (a new client with no overall timeout when it
	// is nil): the provider's own, to wrap its transport or set its redirect policy.
	Client *http.Client
	// Clock is Endpoint.Clock, or [clock.System].
	Clock clock.Clock
	// Idle is Endpoint.IdleTimeout, or [idle.DefaultTimeout] when it is zero (negative
	// disables the timer).
	Idle time.Duration
	// KeyOrigin is where the credentials come from (see [failure.KeyOrigin]).
	KeyOrigin string
}

// Resolve checks s for the provider named name ("anthropic", the prefix of its errors) and
// applies the defaults. It fails only for an unusable base URL.
func (s Endpoint) Resolve(name string) (*Resolved, error) {
	u, err := url.Parse(s.BaseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("%s: base URL %q is not an absolute http(s) URL", name, s.BaseURL)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s: base URL %q: scheme must be http or https", name, s.BaseURL)
	}
	e := &Resolved{URL: u, Client: &http.Client{}, Clock: s.Clock, Idle: s.IdleTimeout,
		KeyOrigin: failure.KeyOrigin(s.KeySource, s.APIKey != "", s.Headers)}
	if s.HTTPClient != nil {
		c := *s.HTTPClient
		e.Client = &c
	}
	if e.Clock == nil {
		e.Clock = clock.System
	}
	if e.Idle == 0 {
		e.Idle = idle.DefaultTimeout
	}
	return e, nil
}
