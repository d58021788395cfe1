package session

import (
	"regexp"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
)

// RetrySettings is the auto-retry policy (pi's): enabled, 3 retries, 2 s base delay by
// default, doubling; a server's Retry-After takes its place, up to 60 s
// (docs/configuration.md#network-behaviour).
type RetrySettings struct {
	Enabled    bool
	MaxRetries int
	BaseDelay  time.Duration
	// MaxRetryAfter caps a server's Retry-After; a longer one ends retrying. 60 s by default.
	MaxRetryAfter time.Duration
}

// DefaultRetrySettings returns pi's defaults.
func DefaultRetrySettings() RetrySettings {
	return RetrySettings{Enabled: true, MaxRetries: 3, BaseDelay: 2 * time.Second, MaxRetryAfter: 60 * time.Second}
}

// retryablePattern is pi's fallback classification for errors a provider did not classify.
var retryablePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error|connection.?refused|connection.?lost|websocket.?closed|websocket.?error|other side closed|fetch failed|upstream.?connect|reset before headers|socket hang up|ended without|http2 request did not get a response|timed? out|timeout|terminated|retry delay`)
})

// failureKind classifies a failed reply: the provider's own classification when it has one,
// else pi's patterns on the message (its auto-retry regex and isContextOverflow).
func failureKind(m *core.AssistantMessage, contextWindow int) core.ErrorKind {
	if m.StopReason == core.StopReasonAborted {
		return core.ErrorAborted
	}
	if m.Failure != nil && m.Failure.Kind != "" {
		return m.Failure.Kind
	}
	if IsContextOverflow(m, contextWindow) {
		return core.ErrorOverflow
	}
	if m.ErrorMessage != "" && retryablePattern().MatchString(m.ErrorMessage) {
		return core.ErrorRetryable
	}
	return core.ErrorOther
}

// retryDelay is the wait before retry attempt n (from 1): the server's Retry-After when it
// sent one, else base * 2^(n-1). ok is false when the server asks for longer than the cap,
// which ends retrying.
func (r RetrySettings) retryDelay(n int, failure *core.ProviderError) (time.Duration, bool) {
	if failure != nil && failure.HasRetryAfter {
		if failure.RetryAfter > r.MaxRetryAfter {
			return 0, false
		}
		return failure.RetryAfter, true
	}
	return r.BaseDelay << (n - 1), true
}

// logFailedReplyLocked logs a reply that failed, at warn: what the provider said (its URL,
// HTTP status and message) and what the period does next, a retry (its attempt and delay)
// or nothing (the final failure). An overflow that compaction recovers from is not logged:
// compaction_start says it.
func (s *Supervisor) logFailedReplyLocked(p *period, m *core.AssistantMessage) {
	log := s.failureLogger(m)
	switch {
	case p.next.kind == nextRetry:
		log.Warn().Int("attempt", p.retryAttempt).Int("maxAttempts", s.cfg.Retry.MaxRetries).Int64("delayMs", p.next.delay).
			Msg("provider request failed; retrying")
	case p.failure != nil:
		log.Warn().Str("kind", string(p.failure.Kind)).Msg("provider request failed")
	}
}

// failureLogger is the session's logger with a failed reply's fields: session, model, and
// the request's URL, HTTP status and the provider's message.
func (s *Supervisor) failureLogger(m *core.AssistantMessage) zerolog.Logger {
	c := s.log.With().Str("sessionId", s.store.SessionID()).Str("model", m.Provider+"/"+m.Model)
	if f := m.Failure; f != nil {
		if f.URL != "" {
			c = c.Str("url", f.URL)
		}
		if f.Status != 0 {
			c = c.Int("status", f.Status)
		}
	}
	return c.Str("error", m.ErrorMessage).Logger()
}
