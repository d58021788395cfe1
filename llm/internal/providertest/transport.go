package providertest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

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
