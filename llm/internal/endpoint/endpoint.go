// Package endpoint holds what every provider under llm/ does alike with its configuration
// before it builds its SDK's client: the settings they all take ([Settings]), checking the
// base URL, the HTTP client the provider may adjust, the defaults of the clock and the idle
// timeout, and where the credentials come from, for authentication failures.
package endpoint

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
	"github.com/pi-rpc/pi-rpc/llm/internal/idle"
)

// Settings are the fields every provider's Config has, in the same order and of the same
// types: llm/anthropic's and llm/google's Config are exactly these, so they convert to
// Settings (a field added to one of them breaks that conversion at compile time, on
// purpose); llm/openai's adds its API choice. The providers' Config types document them.
type Settings struct {
	BaseURL     string
	APIKey      string
	KeySource   string
	Headers     map[string]string
	IdleTimeout time.Duration
	HTTPClient  *http.Client
	Clock       clock.Clock
}

// Endpoint is a provider's [Settings] made ready for its client.
type Endpoint struct {
	// URL is the parsed base URL, absolute and http or https.
	URL *url.URL
	// Client is a copy of Settings.HTTPClient (a new client with no overall timeout when it
	// is nil): the provider's own, to wrap its transport or set its redirect policy.
	Client *http.Client
	// Clock is Settings.Clock, or [clock.System].
	Clock clock.Clock
	// Idle is Settings.IdleTimeout, or [idle.DefaultTimeout] when it is zero (negative
	// disables the timer).
	Idle time.Duration
	// KeyOrigin is where the credentials come from (see [failure.KeyOrigin]).
	KeyOrigin string
}

// New checks s for the provider named name ("anthropic", the prefix of its errors) and
// returns its endpoint. It fails only for an unusable base URL.
func New(name string, s Settings) (*Endpoint, error) {
	u, err := url.Parse(s.BaseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("%s: base URL %q is not an absolute http(s) URL", name, s.BaseURL)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s: base URL %q: scheme must be http or https", name, s.BaseURL)
	}
	e := &Endpoint{URL: u, Client: &http.Client{}, Clock: s.Clock, Idle: s.IdleTimeout,
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
