package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"

	oa "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
	"github.com/pi-rpc/pi-rpc/llm/internal/idle"
)

// Config configures a [Provider]. Everything is explicit: nothing is read from the
// environment.
type Config struct {
	// BaseURL is the API root, e.g. "https://api.openai.com/v1"; requests go to
	// BaseURL + "/chat/completions". Required.
	BaseURL string
	// APIKey is sent as a bearer token when non-empty (local servers often need none).
	APIKey string
	// KeySource says where APIKey came from ("OPENAI_API_KEY", "models.json provider
	// ollama"), so that an authentication failure names the setting to fix.
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
	// Clock is the time source; nil means [SystemClock].
	Clock Clock
}

// Provider streams Chat Completions from one OpenAI-compatible endpoint. It implements
// [core.Provider] and is safe for concurrent use.
type Provider struct {
	cfg    Config
	client oa.Client
	clock  Clock
	idle   time.Duration
	host   string
}

// New returns a provider for cfg. It fails only for an unusable BaseURL.
func New(cfg Config) (*Provider, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("openai: base URL %q is not an absolute http(s) URL", cfg.BaseURL)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("openai: base URL %q: scheme must be http or https", cfg.BaseURL)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	p := &Provider{cfg: cfg, clock: cfg.Clock, idle: cfg.IdleTimeout, host: strings.ToLower(u.Hostname())}
	if p.clock == nil {
		p.clock = SystemClock{}
	}
	if p.idle == 0 {
		p.idle = DefaultIdleTimeout
	}
	opts := []option.RequestOption{
		option.WithHTTPClient(hc),
		option.WithBaseURL(cfg.BaseURL),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	// A Client literal, not oa.NewClient: NewClient reads OPENAI_* from the environment.
	p.client = oa.Client{Options: opts}
	return p, nil
}

// Stream implements [core.Provider].
func (p *Provider) Stream(ctx context.Context, req *core.Request) iter.Seq[core.AssistantEvent] {
	return func(yield func(core.AssistantEvent) bool) {
		p.stream(ctx, req, yield)
	}
}

func (p *Provider) stream(parent context.Context, req *core.Request, yield func(core.AssistantEvent) bool) {
	model := req.Model
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)

	var wd *idle.Watchdog
	b := core.NewMessageBuilder(&model, p.clock.Now().UnixMilli(), func(ev core.AssistantEvent) bool {
		wd.Pause()
		ok := yield(ev)
		wd.Touch()
		return ok
	})

	params, opts, err := p.buildRequest(req)
	if err != nil {
		b.Fail(&core.ProviderError{Kind: core.ErrorOther, Message: err.Error()})
		return
	}

	wd = idle.NewWatchdog(p.clock, p.idle, cancel)
	defer wd.Stop()
	var resp *http.Response
	err = p.client.Post(ctx, "chat/completions", params, &resp, opts...)
	if err != nil {
		if resp != nil && resp.Body != nil {
			_ = resp.Body.Close()
		}
		b.Fail(p.requestFailure(parent, wd, err))
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

	m := newMapper(b, model.ID)
	done := false
	for dec.Next() {
		data := bytes.TrimSpace(dec.Event().Data)
		if len(data) == 0 {
			continue
		}
		if bytes.Equal(data, []byte("[DONE]")) {
			done = true
			break
		}
		var c chunk
		if err := failure.DecodeObject(data, &c); err != nil {
			kind := core.ErrorRetryable
			if m.chunks == 0 {
				// The first event is not JSON: the server speaks something else.
				kind = core.ErrorOther
			}
			b.Fail(&core.ProviderError{Kind: kind, Message: fmt.Sprintf("Provider sent malformed data: %s (%v)", failure.Snippet(data), err)})
			return
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			b.Fail(classifyStreamError(data, p.cfg.KeySource))
			return
		}
		if !m.apply(&c) {
			return
		}
	}

	switch {
	case parent.Err() != nil:
		b.Fail(core.Aborted())
		return
	case wd.Expired():
		b.Fail(&core.ProviderError{Kind: core.ErrorRetryable, Message: wd.Message()})
		return
	case dec.Err() != nil:
		b.Fail(&core.ProviderError{Kind: core.ErrorRetryable, Message: "Connection to provider lost mid-stream: " + dec.Err().Error()})
		return
	case m.failure != nil:
		b.Fail(m.failure)
		return
	case m.chunks == 0 && !done:
		b.Fail(failure.NotAStream(resp, body.Head))
		return
	case !done && !m.sawFinish:
		b.Fail(&core.ProviderError{Kind: core.ErrorRetryable, Message: "Provider stream ended without a finish reason (connection closed early)"})
		return
	}
	if !m.sawFinish && m.sawToolUse {
		// Servers that never send finish_reason (compat supportsFinishReason:false).
		b.SetStopReason(core.StopReasonToolUse)
	}
	b.Done()
}

// requestFailure classifies a failure before the event stream started: cancellation, the
// idle timer, an HTTP error status, or a transport error.
func (p *Provider) requestFailure(parent context.Context, wd *idle.Watchdog, err error) *core.ProviderError {
	if parent.Err() != nil {
		return core.Aborted()
	}
	if wd.Expired() {
		return &core.ProviderError{Kind: core.ErrorRetryable, Message: wd.Message()}
	}
	var apierr *oa.Error
	if errors.As(err, &apierr) && apierr.Response != nil {
		return classifyHTTP(apierr.StatusCode, apierr.Response.Header, failure.ErrorBody(apierr.Response), p.cfg.KeySource, p.clock.Now())
	}
	return failure.Transport(err)
}
