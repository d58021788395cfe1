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

// transport sets the API key (or removes the SDK's placeholder when there is none), records
// the response in the request's exchange, and gives the SDK a success's body through the idle
// timer and [sseFilter].
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
	resp.Body = newSSEFilter(ex.stream)
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

// sseFilter drops what Gemini's SSE may carry and the SDK's stream reader, which takes only
// "data:" lines, would fail on: comment lines (": keep-alive", as proxies send them) and the
// event:, id: and retry: fields; runs of blank lines left behind collapse into one, so each
// event still ends with exactly one. Bytes pass through line by line as they arrive.
type sseFilter struct {
	rc  io.ReadCloser
	buf []byte // read, not yet filtered
	out []byte // filtered, not yet returned
	eof bool
	// blank: the last line passed was blank (or none has passed yet).
	blank bool
}

func newSSEFilter(rc io.ReadCloser) *sseFilter { return &sseFilter{rc: rc, blank: true} }

// Read implements [io.Reader].
func (f *sseFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.eof {
			if len(f.buf) > 0 {
				f.line(f.buf)
				f.buf = nil
				continue
			}
			return 0, io.EOF
		}
		var chunk [32 << 10]byte
		n, err := f.rc.Read(chunk[:])
		f.buf = append(f.buf, chunk[:n]...)
		for {
			i := bytes.IndexByte(f.buf, '\n')
			if i < 0 {
				break
			}
			f.line(f.buf[:i+1])
			f.buf = f.buf[i+1:]
		}
		if err == io.EOF {
			f.eof = true
		} else if err != nil {
			if len(f.out) > 0 {
				break
			}
			return 0, err
		}
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// line passes one line (with its end) or drops it.
func (f *sseFilter) line(l []byte) {
	content := bytes.TrimRight(l, "\r\n")
	switch {
	case len(content) == 0:
		if f.blank {
			return
		}
		f.blank = true
	case content[0] == ':' || bytes.HasPrefix(content, []byte("event:")) || bytes.HasPrefix(content, []byte("id:")) || bytes.HasPrefix(content, []byte("retry:")):
		return
	default:
		f.blank = false
	}
	f.out = append(f.out, l...)
}

// Close implements [io.Closer].
func (f *sseFilter) Close() error { return f.rc.Close() }
