package anthropic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
	"github.com/pi-rpc/pi-rpc/llm/internal/idle"
)

// Config configures a [Provider]: the [llm.Endpoint] every provider takes. BaseURL is the
// API root, e.g. "https://api.anthropic.com"; requests go to BaseURL + "/v1/messages".
// APIKey is sent as the x-api-key header. Everything is explicit: nothing is read from the
// environment (the SDK's ANTHROPIC_* defaults are switched off).
type Config struct {
	llm.Endpoint
}

// Provider streams Messages from one Anthropic endpoint. It implements [core.Provider] and
// is safe for concurrent use.
type Provider struct {
	cfg    Config
	client sdk.Client
	clock  clock.Clock
	idle   time.Duration
	// keyOrigin is where the credentials come from, for authentication failures.
	keyOrigin string
	// logURL is the Messages endpoint without credentials or query, for failures in the log.
	logURL string
}

// New returns a provider for cfg. It fails only for an unusable BaseURL.
func New(cfg Config) (*Provider, error) {
	ep, err := cfg.Resolve("anthropic")
	if err != nil {
		return nil, err
	}
	p := &Provider{cfg: cfg, clock: ep.Clock, idle: ep.Idle, keyOrigin: ep.KeyOrigin, logURL: failure.LogURL(ep.URL.JoinPath("v1", "messages"))}
	opts := []option.RequestOption{
		// No ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL or profile from the environment: the
		// binary passes what it resolved, and tests get exactly what they configure.
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(ep.Client),
		option.WithBaseURL(cfg.BaseURL),
		// Retries belong to the session's supervisor (auto_retry_* events).
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		// x-api-key, as the Messages API documents it and pi sends it: Anthropic-compatible
		// endpoints expect it, while this SDK's WithAPIKey sends a bearer token.
		opts = append(opts, option.WithHeader("x-api-key", cfg.APIKey))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	p.client = sdk.NewClient(opts...)
	return p, nil
}

// fail ends the message with f, which names the endpoint for the log.
func (p *Provider) fail(b *core.MessageBuilder, f *core.ProviderError) {
	f.URL = p.logURL
	b.Fail(f)
}

// Stream implements [core.Provider].
func (p *Provider) Stream(ctx context.Context, req *core.Request) iter.Seq[core.AssistantEvent] {
	return idle.Replies(ctx, p.clock, p.idle, req, p.stream)
}

func (p *Provider) stream(s *idle.Stream, req *core.Request) {
	b := s.B

	params, opts, err := buildRequest(req)
	if err != nil {
		p.fail(b, &core.ProviderError{Kind: core.ErrorOther, Message: err.Error()})
		return
	}

	wd := s.Arm()
	var resp *http.Response
	err = p.client.Post(s.Ctx, "v1/messages", params, &resp, opts...)
	if err != nil {
		if resp != nil && resp.Body != nil {
			_ = resp.Body.Close()
		}
		p.fail(b, p.requestFailure(s, err))
		return
	}
	body := &idle.Body{RC: resp.Body, W: wd}
	resp.Body = body
	dec := ssestream.NewDecoder(resp)
	defer func() { _ = dec.Close() }()
	wd.Touch()
	if !b.Start() {
		return
	}

	m := newMapper(b, &s.Model)
	if !p.readEvents(dec, m, b) {
		return
	}
	if f := p.endFailure(s, m, dec.Err(), resp, body); f != nil {
		p.fail(b, f)
		return
	}
	b.Done()
}

// readEvents maps the stream's events through m until it stops or fails; it reports false
// when the stream has already been failed or its consumer stopped.
func (p *Provider) readEvents(dec ssestream.Decoder, m *mapper, b *core.MessageBuilder) bool {
	for dec.Next() {
		ev := dec.Event()
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 {
			continue
		}
		var e event
		if err := failure.DecodeObject(data, &e); err != nil {
			kind := core.ErrorRetryable
			if m.events == 0 {
				// The first event is not JSON: the server speaks something else.
				kind = core.ErrorOther
			}
			p.fail(b, &core.ProviderError{Kind: kind, Message: fmt.Sprintf("Provider sent malformed data: %s (%v)", failure.Snippet(data), err)})
			return false
		}
		if ev.Type == "error" || e.Type == "error" {
			p.fail(b, classifyStreamError(&e, data, p.keyOrigin))
			return false
		}
		if !m.apply(&e) {
			return false
		}
		if m.failure != nil || m.stopped {
			break
		}
	}
	return true
}

// endFailure says why a stream that ended did not complete a message: cancellation, the idle
// timer, a failure the server reported, a lost connection, a response that was no event
// stream, or an end before message_stop. It is nil for a complete message.
func (p *Provider) endFailure(s *idle.Stream, m *mapper, decErr error, resp *http.Response, body *idle.Body) *core.ProviderError {
	switch f := s.Interrupted(); {
	case f != nil:
		return f
	case m.failure != nil:
		return m.failure
	case decErr != nil:
		return &core.ProviderError{Kind: core.ErrorRetryable, Message: "Connection to provider lost mid-stream: " + decErr.Error()}
	case m.events == 0:
		return failure.NotAStream(resp, body.Head)
	case !m.stopped:
		return &core.ProviderError{Kind: core.ErrorRetryable, Message: "Anthropic stream ended before message_stop (connection closed early)"}
	}
	return nil
}

// requestFailure classifies a failure before the event stream started: cancellation, the
// idle timer, an HTTP error status, or a transport error.
func (p *Provider) requestFailure(s *idle.Stream, err error) *core.ProviderError {
	if f := s.Interrupted(); f != nil {
		return f
	}
	var apierr *sdk.Error
	if errors.As(err, &apierr) && apierr.Response != nil {
		return classifyHTTP(apierr.StatusCode, apierr.Response.Header, failure.ErrorBody(apierr.Response), p.keyOrigin, p.clock.Now())
	}
	return failure.Transport(err)
}
