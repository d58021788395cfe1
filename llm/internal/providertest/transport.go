package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm"
)

// Update is the -update flag of the providers' request tests: rewrite the golden files
// instead of comparing with them.
var Update = flag.Bool("update", false, "rewrite golden files")

// CaptureTransport records the request a provider sends and answers with SSE, a minimal
// stream in the provider's dialect.
type CaptureTransport struct {
	SSE    string
	URL    string
	Body   []byte
	Header http.Header
}

// RoundTrip implements [http.RoundTripper].
func (c *CaptureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.URL = req.URL.String()
	c.Body, _ = io.ReadAll(req.Body)
	c.Header = req.Header.Clone()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(c.SSE)), Request: req}, nil
}

// Capturer records the requests a provider sends, for its request tests: New builds the
// provider, and SSE is the minimal stream, in the provider's dialect, that a capture
// answers with.
type Capturer[P core.Provider] struct {
	SSE string
	New func(llm.Endpoint) (P, error)
}

// Transport is a new [CaptureTransport] answering c.SSE, for a test that sets up the
// provider itself.
func (c Capturer[P]) Transport() *CaptureTransport { return &CaptureTransport{SSE: c.SSE} }

// Capture streams req through the provider c.New builds for e, with a [CaptureTransport]
// answering c.SSE as e's HTTP client and no idle timer, and returns the transport holding
// the request sent. A stream that does not end with stop fails the test: the request tests
// look at the request only once the provider took the answer.
func (c Capturer[P]) Capture(t *testing.T, e llm.Endpoint, req *core.Request) *CaptureTransport {
	t.Helper()
	ct := c.Transport()
	e.HTTPClient, e.IdleTimeout = &http.Client{Transport: ct}, -1
	p, err := c.New(e)
	if err != nil {
		t.Fatal(err)
	}
	if _, final := Run(t, context.Background(), p, req, DescribeEvent); final.StopReason != core.StopReasonStop {
		t.Fatalf("stream failed: %s", final.ErrorMessage)
	}
	return ct
}

// CheckHeaders reports each header of want that the recorded request did not send with
// its value (a model's headers, say).
func (c *CaptureTransport) CheckHeaders(t *testing.T, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got := c.Header.Get(k); got != v {
			t.Errorf("header %s = %q, want the model's %q", k, got, v)
		}
	}
}

// BodyTransport answers every request with the same in-memory SSE body.
type BodyTransport struct{ Body []byte }

// RoundTrip implements [http.RoundTripper].
func (t BodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(t.Body)), Request: req}, nil
}

// IndentJSON is body indented by two spaces; a body that is not JSON fails the test.
func IndentJSON(t *testing.T, body []byte) []byte {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, body, "", "  "); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, body)
	}
	return pretty.Bytes()
}

// GoldenRequest compares got, a request body as the test formats it, with the golden file
// testdata/request_<name>.golden.json (see [Golden], [Update]).
func GoldenRequest(t *testing.T, name string, got []byte) {
	t.Helper()
	Golden(t, filepath.Join("testdata", "request_"+name+".golden.json"), got, *Update)
}

// Golden compares got with the file at path, first rewriting the file when update is set
// (the -update flag of TestRequestGolden).
func Golden(t *testing.T, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("request body differs from %s (go test -run TestRequestGolden -update):\n%s", path, got)
	}
}
