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

	"github.com/pi-rpc/pi-rpc/internal/clock"

	oa "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
	"github.com/pi-rpc/pi-rpc/llm/internal/idle"
)

// userAgent names pi-rpc to the server.
const userAgent = "pi-rpc"

// Config configures a [Provider]: the [llm.Endpoint] every provider takes, and the API
// the endpoint speaks. BaseURL is the API root, e.g. "https://api.openai.com/v1"; requests go
// to BaseURL + "/chat/completions". APIKey is sent as a bearer token (local servers often
// need none). Everything is explicit: nothing is read from the environment.
type Config struct {
	llm.Endpoint

	// API is the API the endpoint speaks: [API] (Chat Completions, the default),
	// [ResponsesAPI] or [AzureAPI] (the Responses API of Azure OpenAI, through openai-go's
	// azure package: BaseURL is the resource's endpoint, APIKey goes in the api-key header).
	API string
	// AzureAPIVersion is Azure's api-version query value; empty means "v1".
	AzureAPIVersion string
	// Deployments names the Azure deployment of each model id that has one; other models are
	// sent under their own id.
	Deployments map[string]string
}

// Provider streams Chat Completions from one OpenAI-compatible endpoint, or Responses from
// OpenAI or Azure OpenAI ([Config.API]), through the openai-go client. It implements
// [core.Provider] and is safe for concurrent use.
type Provider struct {
	cfg    Config
	client oa.Client
	clock  clock.Clock
	idle   time.Duration
	host   string
	// keyOrigin is where the credentials come from, for authentication failures.
	keyOrigin string
	// logURL is the endpoint without credentials or query, for failures in the log.
	logURL string
	// responses: the endpoint speaks the Responses API, at path below the client's base URL.
	responses bool
	path      string
}

// New returns a provider for cfg. It fails only for an unusable BaseURL.
func New(cfg Config) (*Provider, error) {
	ep, err := cfg.Resolve("openai")
	if err != nil {
		return nil, err
	}
	u, hc := ep.URL, ep.Client // hc is a copy, so the redirect policy below is this provider's alone
	hc.CheckRedirect = sameOriginRedirects(u, hc.CheckRedirect)
	// The path is resolved below the base URL's path, which is taken as a directory.
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	path := chatPath
	root := u
	switch cfg.API {
	case "", API:
	case ResponsesAPI:
		path = responsesPath
	case AzureAPI:
		root, path = azureRoute(u)
	default:
		return nil, fmt.Errorf("openai: api %q is not served by this package", cfg.API)
	}
	target, err := root.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("openai: base URL %q: %w", cfg.BaseURL, err)
	}
	p := &Provider{cfg: cfg, clock: ep.Clock, idle: ep.Idle, host: strings.ToLower(u.Hostname()),
		keyOrigin: ep.KeyOrigin, logURL: failure.LogURL(target),
		responses: IsResponsesAPI(cfg.API), path: path}
	opts := []option.RequestOption{
		option.WithHTTPClient(hc),
		// pi-rpc's session layer retries, visibly; the SDK's own retries stay off.
		option.WithMaxRetries(0),
	}
	if cfg.API == AzureAPI {
		// The azure package drops headers set before it, so the others follow.
		opts = append(opts, azureOptions(root, cfg)...)
	} else {
		opts = append(opts, option.WithBaseURL(u.String()))
		if cfg.APIKey != "" {
			opts = append(opts, option.WithAPIKey(cfg.APIKey))
		}
	}
	opts = append(opts, option.WithHeader("Accept", "text/event-stream"), option.WithHeader("User-Agent", userAgent))
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	// A Client literal, not oa.NewClient: NewClient reads OPENAI_* from the environment.
	p.client = oa.Client{Options: opts}
	return p, nil
}

// chatPath is the Chat Completions endpoint below the base URL.
const chatPath = "chat/completions"

// fail ends the message with f, which names the endpoint for the log.
func (p *Provider) fail(b *core.MessageBuilder, f *core.ProviderError) {
	f.URL = p.logURL
	b.Fail(f)
}

// Stream implements [core.Provider].
func (p *Provider) Stream(ctx context.Context, req *core.Request) iter.Seq[core.AssistantEvent] {
	reply := p.stream
	if p.responses {
		reply = p.streamResponses
	}
	return idle.Replies(ctx, p.clock, p.idle, req, reply)
}

// statusError is an HTTP error status, its body read through the idle timer (the
// middleware of [Provider.watch]), handed back to stream for classification.
type statusError struct {
	status int
	header http.Header
	body   []byte
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d", e.status) }

// watch is the request middleware that puts the idle timer on the response body, reads an
// error status's body itself (so that llm/internal/failure classifies it, whatever it holds),
// and removes the SDK's telemetry headers, which pi-rpc has never sent to servers.
func (p *Provider) watch(wd *idle.Watchdog, body **idle.Body) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		for k := range req.Header {
			if strings.HasPrefix(k, "X-Stainless-") {
				req.Header.Del(k)
			}
		}
		req.Header.Del("Idempotency-Key")
		resp, err := next(req)
		if err != nil {
			return resp, err
		}
		*body = &idle.Body{RC: resp.Body, W: wd}
		resp.Body = *body
		if resp.StatusCode >= 400 {
			// The error body counts as waiting for the server too.
			errBody := failure.ReadErrorBody(resp.Body)
			_ = resp.Body.Close()
			return nil, &statusError{status: resp.StatusCode, header: resp.Header, body: errBody}
		}
		return resp, nil
	}
}

func (p *Provider) stream(s *idle.Stream, req *core.Request) {
	st := p.openStream(s, chatPath, func() (any, []option.RequestOption, error) {
		return p.buildRequest(req)
	})
	if st == nil {
		return
	}
	defer st.stop()
	b, events := st.B, st.events

	m := newMapper(b, s.Model.ID)
	done := false
	for events.Next() {
		data := bytes.TrimSpace(events.Event().Data)
		if len(data) == 0 {
			continue
		}
		if bytes.Equal(data, []byte("[DONE]")) {
			done = true
			break
		}
		var c oa.ChatCompletionChunk
		if err := failure.DecodeObject(data, &c); err != nil {
			p.fail(b, malformed(data, err, m.chunks == 0))
			return
		}
		if extra(c.JSON.ExtraFields, "error") != "" {
			p.fail(b, classifyStreamError(data, p.keyOrigin))
			return
		}
		if !m.apply(&c) {
			return
		}
	}
	switch readFailure := st.readFailure(); {
	case readFailure != nil:
		p.fail(b, readFailure)
		return
	case m.failure != nil:
		p.fail(b, m.failure)
		return
	case m.chunks == 0 && !done:
		p.fail(b, st.notAStream())
		return
	case !done && !m.sawFinish:
		p.fail(b, &core.ProviderError{Kind: core.ErrorRetryable, Message: "Provider stream ended without a finish reason (connection closed early)"})
		return
	}
	if !m.sawFinish && m.sawToolUse {
		// Servers that never send finish_reason (compat supportsFinishReason:false).
		b.SetStopReason(core.StopReasonToolUse)
	}
	b.Done()
}

// requestFailure classifies a failure before the event stream started: cancellation, the
// idle timer, or a transport error. With a nil err it reports only the first two, or nil.
func (p *Provider) requestFailure(s *idle.Stream, err error) *core.ProviderError {
	if f := s.Interrupted(); f != nil || err == nil {
		return f
	}
	var se *statusError
	if errors.As(err, &se) {
		return classifyHTTP(se.status, se.header, se.body, p.keyOrigin, p.clock.Now())
	}
	if errors.Is(err, errCrossOrigin) {
		// Following it would send the key elsewhere; retrying would be refused again.
		return &core.ProviderError{Kind: core.ErrorOther, Message: "Request failed: " + err.Error()}
	}
	return failure.Transport(err)
}

// errCrossOrigin refuses a redirect away from the base URL's origin.
var errCrossOrigin = errors.New("redirect leaves the base URL's origin")

// sameOriginRedirects is a redirect policy that follows redirects only within base's origin
// (scheme, host and port): net/http drops Authorization on a redirect to another host, but
// not the models.json headers, which may carry keys too. next, if set, is the client's own
// policy, applied after; otherwise net/http's limit of 10 redirects holds.
func sameOriginRedirects(base *url.URL, next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, base) {
			return fmt.Errorf("%w: %s", errCrossOrigin, req.URL.Redacted())
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && effectivePort(a) == effectivePort(b)
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}
