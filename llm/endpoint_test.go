package llm

import (
	"net/http"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/internal/idle"
)

// TestResolveRejectsBadURL: a base URL that is not absolute http(s) fails, named with the
// provider's prefix.
func TestResolveRejectsBadURL(t *testing.T) {
	for u, want := range map[string]string{
		"":                  `x: base URL "" is not an absolute http(s) URL`,
		"api.anthropic.com": `x: base URL "api.anthropic.com" is not an absolute http(s) URL`,
		"ftp://x":           `x: base URL "ftp://x": scheme must be http or https`,
		"http://[::1":       `x: base URL "http://[::1" is not an absolute http(s) URL`,
	} {
		if _, err := (Endpoint{BaseURL: u}).Resolve("x"); err == nil || err.Error() != want {
			t.Errorf("Resolve(%q) = %v, want %s", u, err, want)
		}
	}
}

// TestResolveDefaults: no clock, client or idle timeout means the system clock, a new client and
// the default timeout; a negative timeout stays negative; no key says so.
func TestResolveDefaults(t *testing.T) {
	e, err := Endpoint{BaseURL: "https://h/v1", KeySource: "X_KEY"}.Resolve("x")
	if err != nil {
		t.Fatal(err)
	}
	if e.Clock != clock.System || e.Idle != idle.DefaultTimeout || e.Client == nil || e.Client == http.DefaultClient || e.URL.Path != "/v1" {
		t.Errorf("endpoint = %+v", e)
	}
	if want := "no API key was sent: X_KEY is not set"; e.KeyOrigin != want {
		t.Errorf("KeyOrigin = %q, want %q", e.KeyOrigin, want)
	}
	if e, _ := (Endpoint{BaseURL: "http://h", IdleTimeout: -1}).Resolve("x"); e.Idle != -1 {
		t.Errorf("Idle = %v, want -1 (off)", e.Idle)
	}
}

// TestResolveCopiesTheClient: the endpoint's client is a copy, so what a provider sets on it
// never reaches the caller's.
func TestResolveCopiesTheClient(t *testing.T) {
	tr := &http.Transport{}
	hc := &http.Client{Transport: tr, Timeout: time.Minute}
	fixed := testkit.Fixed(time.UnixMilli(5))
	e, err := Endpoint{BaseURL: "http://h", HTTPClient: hc, Clock: fixed, IdleTimeout: time.Second, APIKey: "k", KeySource: "X_KEY"}.Resolve("x")
	if err != nil {
		t.Fatal(err)
	}
	if e.Client == hc || e.Client.Transport != tr || e.Client.Timeout != time.Minute {
		t.Errorf("client = %+v, want a copy of %+v", e.Client, hc)
	}
	e.Client.CheckRedirect = func(*http.Request, []*http.Request) error { return nil }
	if hc.CheckRedirect != nil {
		t.Error("the caller's client changed")
	}
	if e.Clock != fixed || e.Idle != time.Second || e.KeyOrigin != "API key from X_KEY" {
		t.Errorf("endpoint = %+v", e)
	}
}
