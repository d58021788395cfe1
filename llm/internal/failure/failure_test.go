package failure

import (
	"net/url"
	"testing"
)

// KeyOrigin names the setting a key came from only when a key was sent; otherwise it says
// none was, and which setting was empty.
func TestKeyOrigin(t *testing.T) {
	tests := []struct {
		name      string
		keySource string
		keySent   bool
		headers   map[string]string
		want      string
	}{
		{"key from a variable", "ANTHROPIC_API_KEY", true, nil, "API key from ANTHROPIC_API_KEY"},
		{"key from models.json", "/m.json provider local (apiKey $K)", true, nil, "API key from /m.json provider local (apiKey $K)"},
		{"key of unknown origin", "", true, nil, "API key from the provider's configuration"},
		{"no key, variable unset", "ANTHROPIC_API_KEY", false, nil, "no API key was sent: ANTHROPIC_API_KEY is not set"},
		{"no key, models.json gives none", "/m.json provider local", false, nil, "no API key was sent: /m.json provider local gives none"},
		{"no key, no source", "", false, nil, "no API key was configured"},
		{"credentials in a header", "OPENAI_API_KEY", false, map[string]string{"X-Team": "a", "Authorization": "Basic x"}, "credentials from the configured Authorization header"},
		{"other headers only", "OPENAI_API_KEY", false, map[string]string{"X-Team": "a"}, "no API key was sent: OPENAI_API_KEY is not set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := KeyOrigin(tc.keySource, tc.keySent, tc.headers); got != tc.want {
				t.Errorf("KeyOrigin(%q, %v, %v) = %q, want %q", tc.keySource, tc.keySent, tc.headers, got, tc.want)
			}
		})
	}
}

// LogURL keeps credentials that a base URL may carry (user information, an api-key query)
// out of the log.
func TestLogURL(t *testing.T) {
	u, err := url.Parse("https://user:secret@gw.example:8443/v1/chat/completions?api-key=sk-1#x")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := LogURL(u), "https://gw.example:8443/v1/chat/completions"; got != want {
		t.Errorf("LogURL = %q, want %q", got, want)
	}
	if u.User == nil || u.RawQuery == "" {
		t.Errorf("LogURL changed its argument: %v", u)
	}
}

// pi's overflow patterns match the context-window messages of every provider, and no rate limit.
func TestIsOverflowMessage(t *testing.T) {
	tests := []struct {
		msg  string
		want bool
	}{
		{"prompt is too long: 213000 tokens > 200000 maximum", true},
		{"Your input exceeds the context window of this model", true},
		{"Requested 140000 tokens, context length exceeded", true},
		{"400 (no body)", true},
		{"429 Rate limit reached: too many tokens", false},
		{"Throttling error: too many tokens", false},
		{"500 internal error", false},
	}
	for _, tc := range tests {
		if got := IsOverflowMessage(tc.msg); got != tc.want {
			t.Errorf("IsOverflowMessage(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
}
