package providertest

import (
	"fmt"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// Fault is one row of a provider's fault table: the scripted response Resp of the
// provider's mock, the events it must produce, and (when Kind is set) the failure the final
// message carries. Content is the final message's content as JSON ("[]" when empty).
type Fault[R any] struct {
	Name    string
	Resp    R
	Want    []string
	Kind    core.ErrorKind
	Status  int
	Retry   time.Duration
	Content string
}

// Refused is the row of m's fault table for an HTTP error answer resp: the provider fails
// before any content, so the stream is the start of a failed response (as m.Describe
// renders it) and the error, classified as kind with the answer's status, whose message is
// msg. The rows of every provider's table that answer with an error status are of this
// form.
func (m Mock[R]) Refused(name string, resp R, kind core.ErrorKind, status int, msg string) Fault[R] {
	return Fault[R]{
		Name: name, Resp: resp, Kind: kind, Status: status,
		Want: []string{m.Describe.Start(core.StopReasonError), fmt.Sprintf("error error %s: %s", kind, msg)},
	}
}

// NotJSON is the row of a fault table for a stream whose first data is not JSON (resp sends
// it): the server speaks something else, so the stream fails at once, and not as
// retryable. detail is how the provider quotes the data.
func NotJSON[R any](name string, resp R, detail string) Fault[R] {
	return Fault[R]{
		Name: name, Resp: resp, Kind: core.ErrorOther,
		Want: []string{"start", "error error other: Provider sent malformed data: " + detail},
	}
}

// Dropped is the row of a fault table for a connection that resp drops mid-stream: after
// the events want, the stream fails as retryable, the connection lost, with the content
// streamed so far (as JSON).
func Dropped[R any](name string, resp R, content string, want ...string) Fault[R] {
	return Fault[R]{
		Name: name, Resp: resp, Kind: core.ErrorRetryable, Content: content,
		Want: append(want, "error error retryable: Connection to provider lost mid-stream: unexpected EOF"),
	}
}

// WithRetry is f with the retry delay the final message's failure must carry.
func (f Fault[R]) WithRetry(after time.Duration) Fault[R] {
	f.Retry = after
	return f
}

// RunFaults runs each fault as a subtest: run streams one request against a mock playing
// the fault's response and returns the described events and the final message.
func RunFaults[R any](t *testing.T, faults []Fault[R], run func(t *testing.T, resp R) ([]string, *core.AssistantMessage)) {
	for _, tc := range faults {
		t.Run(tc.Name, func(t *testing.T) {
			got, final := run(t, tc.Resp)
			DiffLines(t, got, tc.Want)
			if tc.Kind != "" {
				f := final.Failure
				if f == nil {
					t.Fatalf("final message has no failure")
				}
				if f.Kind != tc.Kind || f.Status != tc.Status {
					t.Errorf("failure kind, status = %s, %d, want %s, %d", f.Kind, f.Status, tc.Kind, tc.Status)
				}
				if f.HasRetryAfter != (tc.Retry != 0) || f.RetryAfter != tc.Retry {
					t.Errorf("retryAfter = %v (%v), want %v", f.RetryAfter, f.HasRetryAfter, tc.Retry)
				}
			}
			if tc.Content == "" {
				tc.Content = "[]"
			}
			if c := ContentJSON(t, final); c != tc.Content {
				t.Errorf("content = %s, want %s", c, tc.Content)
			}
		})
	}
}

// HTTPFaults are the rows every provider's fault table shares: HTTP answers that are not
// the provider's own (a 500 with no body, a proxy's 502 HTML page, a 200 whose body is not
// an event stream), each m's empty Text response with the answer's fault fields. notStream
// is what the provider adds to the 200's error message (Gemini's SDK quotes the chunk it
// could not read).
func (m Mock[R]) HTTPFaults(notStream string) []Fault[R] {
	resp := func(f mockhttp.Faults) R { return m.Text("", f) }
	return []Fault[R]{
		m.Refused("500 without a body", resp(mockhttp.Faults{Status: 500}),
			core.ErrorRetryable, 500, "500 status code (no body)"),
		m.Refused("502 with an HTML body", resp(mockhttp.Faults{Status: 502, Body: "<html>\n<body>Bad gateway</body>\n</html>", ContentType: "text/html"}),
			core.ErrorRetryable, 502, "502 Bad Gateway: <html> <body>Bad gateway</body> </html>"),
		{
			Name: "200 with a body that is not an event stream",
			Resp: resp(mockhttp.Faults{Body: "<html>maintenance</html>", ContentType: "text/html"}),
			Want: []string{"start", `error error other: Provider returned 200 with a body that is not an event stream (Content-Type "text/html"): <html>maintenance</html>` + notStream},
			Kind: core.ErrorOther, Status: 200,
		},
	}
}
