package google

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"

	"google.golang.org/genai"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/idle"
)

// Config configures a [Provider]: the [llm.Endpoint] every provider takes. BaseURL is the
// API root, with or without its version: "https://generativelanguage.googleapis.com/v1beta"
// (pi's form) or a root such as a mock's "http://127.0.0.1:PORT", to which "/v1beta" is
// added; requests go to BaseURL + "/models/{model}:streamGenerateContent?alt=sse". APIKey is
// sent as the x-goog-api-key header. Everything is explicit: the SDK's GEMINI_API_KEY,
// GOOGLE_API_KEY and GOOGLE_GEMINI_BASE_URL defaults never apply (see [New]).
type Config struct {
	llm.Endpoint
}

// Provider streams GenerateContent responses from one Gemini API endpoint. It implements
// [core.Provider] and is safe for concurrent use.
type Provider struct {
	cfg    Config
	client *genai.Client
	clock  clock.Clock
	idle   time.Duration
	// calls numbers the tool-call ids this provider makes for calls the API sent without one.
	calls atomic.Int64
}

// noKey is the API key the SDK is given when the configuration has none: the SDK insists on
// one (and would otherwise read GEMINI_API_KEY or GOOGLE_API_KEY itself); the transport
// removes it again, so the request goes without a key.
const noKey = "pi-rpc-no-key"

// versionSegment matches an API version at the end of a base URL's path.
var versionSegment = regexp.MustCompile(`^v\d+(?:(?:alpha|beta)\d*)?$`)

// New returns a provider for cfg. It fails only for an unusable BaseURL.
func New(cfg Config) (*Provider, error) {
	ep, err := cfg.Resolve("google")
	if err != nil {
		return nil, err
	}
	root, version := splitVersion(ep.URL)
	hc := ep.Client
	hc.Transport = &transport{base: hc.Transport, key: cfg.APIKey}
	p := &Provider{cfg: cfg, clock: ep.Clock, idle: ep.Idle}
	headers := http.Header{}
	for k, v := range cfg.Headers {
		headers.Set(k, v)
	}
	// The backend, key, base URL and version are all given, so the SDK reads none of its
	// environment variables; retries are off by default (HTTPOptions.RetryOptions nil) and
	// belong to the session's supervisor (auto_retry_* events).
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend:    genai.BackendGeminiAPI,
		APIKey:     noKey,
		HTTPClient: hc,
		HTTPOptions: genai.HTTPOptions{
			BaseURL:    root,
			APIVersion: version,
			Headers:    headers,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("google: %w", err)
	}
	p.client = client
	return p, nil
}

// splitVersion separates a trailing API version ("v1beta", "v1") from a base URL, as pi's
// base URLs carry it and the SDK adds it itself; a URL without one gets "v1beta".
func splitVersion(u *url.URL) (root, version string) {
	c := *u
	path := strings.TrimRight(c.Path, "/")
	i := strings.LastIndex(path, "/")
	if last := path[i+1:]; versionSegment.MatchString(last) {
		c.Path = path[:i+1]
		return c.String(), last
	}
	c.Path = path + "/"
	return c.String(), "v1beta"
}

// Stream implements [core.Provider].
func (p *Provider) Stream(ctx context.Context, req *core.Request) iter.Seq[core.AssistantEvent] {
	return idle.Replies(ctx, p.clock, p.idle, req, p.stream)
}

func (p *Provider) stream(s *idle.Stream, req *core.Request) {
	b := s.B

	contents, config, err := buildRequest(req)
	if err != nil {
		b.Fail(&core.ProviderError{Kind: core.ErrorOther, Message: err.Error()})
		return
	}

	wd := s.Arm()
	ex := &exchange{wd: wd}
	ctx := context.WithValue(s.Ctx, exchangeKey{}, ex)

	m := newMapper(b, &s.Model, p.newCallID)
	consumerStopped := false
	err = p.each(ctx, s.Model.ID, contents, config, func(chunk *genai.GenerateContentResponse) bool {
		wd.Touch()
		if !m.apply(chunk) {
			consumerStopped = true
			return false
		}
		return m.failure == nil
	})
	switch {
	case consumerStopped:
		return
	case err != nil:
		b.Fail(p.failure(s, ex, m, err))
		return
	case m.failure != nil:
		b.Fail(m.failure)
		return
	}
	switch f := s.Interrupted(); {
	case f != nil:
		b.Fail(f)
	case m.chunks == 0:
		b.Fail(ex.notAStream())
	case !m.finished:
		b.Fail(&core.ProviderError{Kind: core.ErrorRetryable, Message: "Gemini stream ended before a finishReason (connection closed early)"})
	default:
		b.Done()
	}
}

// each calls f with every chunk of the response until f returns false, and returns the
// stream's error. The SDK panics on some chunks of an unexpected shape (a type assertion in
// its response converter); each recovers that panic as an [sdkPanic] error, so a server's
// garbage fails the request instead of the process. A panic inside f is not the SDK's and
// goes on.
func (p *Provider) each(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig, f func(*genai.GenerateContentResponse) bool) (err error) {
	inF := false
	defer func() {
		if r := recover(); r != nil {
			if inF {
				panic(r)
			}
			err = &sdkPanic{value: r}
		}
	}()
	for chunk, err := range p.client.Models.GenerateContentStream(ctx, model, contents, config) {
		if err != nil {
			return err
		}
		inF = true
		ok := f(chunk)
		inF = false
		if !ok {
			return nil
		}
	}
	return nil
}

// sdkPanic is a panic of the SDK while it read the response.
type sdkPanic struct{ value any }

func (e *sdkPanic) Error() string { return fmt.Sprintf("the SDK could not read a chunk: %v", e.value) }

// newCallID makes an id for a function call the API sent without one (Gemini 2.5 and 3
// send none): the function's name, the time and a counter, as pi makes them. It is saved
// with the message, so it stays stable in the session file.
func (p *Provider) newCallID(name string) string {
	return fmt.Sprintf("%s_%d_%d", name, p.clock.Now().UnixMilli(), p.calls.Add(1))
}
