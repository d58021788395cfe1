package openai

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
	"github.com/pi-rpc/pi-rpc/llm/internal/idle"
)

// modelStream is one streaming request of either API, open: the message builder its events
// go to, the SDK's event decoder over the response, and the idle watchdog that guards both.
// Chat Completions and the Responses API differ only in the request and in how events map
// onto the builder.
type modelStream struct {
	*idle.Stream
	events ssestream.Decoder
	resp   *http.Response
	body   *idle.Body
}

// openStream builds the request with build, posts it to path with the SDK's client behind
// the idle watchdog and opens the SDK's event decoder. It returns nil when the reply has
// already ended (the request failed and the failure was reported, or the consumer stopped);
// otherwise the caller reads s.events and calls s.stop when done.
func (p *Provider) openStream(st *idle.Stream, path string, build func() (any, []option.RequestOption, error)) *modelStream {
	s := &modelStream{Stream: st}
	params, opts, err := build()
	if err != nil {
		p.fail(s.B, &core.ProviderError{Kind: core.ErrorOther, Message: err.Error()})
		return nil
	}
	wd := s.Arm()
	opts = append(opts, option.WithMiddleware(p.watch(wd, &s.body)))
	if err := p.client.Post(s.Ctx, path, params, &s.resp, opts...); err != nil {
		if s.resp != nil && s.resp.Body != nil {
			_ = s.resp.Body.Close()
		}
		p.fail(s.B, p.requestFailure(st, err))
		return nil
	}
	s.events = ssestream.NewDecoder(s.resp)
	wd.Touch()
	if !s.B.Start() {
		s.stop()
		return nil
	}
	return s
}

// stop closes the event decoder (the reply's [idle.Stream] is closed by its Replies).
func (s *modelStream) stop() { _ = s.events.Close() }

// malformed is the failure of an event that is not JSON: retryable, unless it is the first
// (then the server speaks something else).
func malformed(data []byte, err error, first bool) *core.ProviderError {
	kind := core.ErrorRetryable
	if first {
		kind = core.ErrorOther
	}
	return &core.ProviderError{Kind: kind, Message: fmt.Sprintf("Provider sent malformed data: %s (%v)", failure.Snippet(data), err)}
}

// readFailure is why reading the events stopped, where that is not the stream's own doing:
// the caller's cancellation, the idle timer, an over-long line or a broken connection; nil
// when the events simply ended.
func (s *modelStream) readFailure() *core.ProviderError {
	readErr := s.events.Err()
	switch f := s.Interrupted(); {
	case f != nil:
		return f
	case errors.Is(readErr, bufio.ErrTooLong):
		return &core.ProviderError{Kind: core.ErrorOther, Message: "Provider sent a server-sent event line over 32 MiB"}
	case readErr != nil:
		return &core.ProviderError{Kind: core.ErrorRetryable, Message: "Connection to provider lost mid-stream: " + readErr.Error()}
	}
	return nil
}

// notAStream is the failure of a response that carried no events at all.
func (s *modelStream) notAStream() *core.ProviderError {
	return failure.NotAStream(s.resp, s.body.Head)
}
