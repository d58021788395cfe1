package google

import (
	"bytes"
	"io"
	"net/http"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
	"github.com/pi-rpc/pi-rpc/llm/internal/idle"
)

// exchange is what the transport saw of one request's response, for the classification the
// SDK's errors cannot give (its APIError drops the headers, so Retry-After, and the body of
// responses that are not Gemini's error envelope), and the idle timer its body feeds.
type exchange struct {
	wd     *idle.Watchdog
	status int
	header http.Header
	// body is an error response's body (at most 1 MiB); stream is a success's body.
	body   []byte
	stream *idle.Body
}

type exchangeKey struct{}

// transport sets the API key (or removes the SDK's placeholder when there is none) and
// records the response in the request's exchange.
type transport struct {
	base http.RoundTripper
	key  string
}

// RoundTrip implements [http.RoundTripper].
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if t.key == "" {
		req.Header.Del("x-goog-api-key")
	} else {
		req.Header.Set("x-goog-api-key", t.key)
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if err != nil || ex == nil {
		return resp, err
	}
	ex.status, ex.header = resp.StatusCode, resp.Header
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		ex.body = failure.ErrorBody(resp)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(ex.body))
		return resp, nil
	}
	ex.stream = &idle.Body{RC: resp.Body, W: ex.wd}
	resp.Body = ex.stream
	return resp, nil
}

// notAStream describes a successful response that held no chunk.
func (ex *exchange) notAStream() *core.ProviderError {
	var head []byte
	if ex.stream != nil {
		head = ex.stream.Head
	}
	return failure.NotAStream(&http.Response{StatusCode: ex.status, Header: ex.header}, head)
}
