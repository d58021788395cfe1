package providertest

import (
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
// an event stream). resp builds the provider mock's response from the shared fault fields;
// notStream is what the provider adds to the 200's error message (Gemini's SDK quotes the
// chunk it could not read); d renders the start event.
func HTTPFaults[R any](d Describer, resp func(mockhttp.Faults) R, notStream string) []Fault[R] {
	return []Fault[R]{
		{
			Name: "500 without a body",
			Resp: resp(mockhttp.Faults{Status: 500}),
			Want: []string{d.Start(core.StopReasonError), "error error retryable: 500 status code (no body)"},
			Kind: core.ErrorRetryable, Status: 500,
		},
		{
			Name: "502 with an HTML body",
			Resp: resp(mockhttp.Faults{Status: 502, Body: "<html>\n<body>Bad gateway</body>\n</html>", ContentType: "text/html"}),
			Want: []string{d.Start(core.StopReasonError), "error error retryable: 502 Bad Gateway: <html> <body>Bad gateway</body> </html>"},
			Kind: core.ErrorRetryable, Status: 502,
		},
		{
			Name: "200 with a body that is not an event stream",
			Resp: resp(mockhttp.Faults{Body: "<html>maintenance</html>", ContentType: "text/html"}),
			Want: []string{"start", `error error other: Provider returned 200 with a body that is not an event stream (Content-Type "text/html"): <html>maintenance</html>` + notStream},
			Kind: core.ErrorOther, Status: 200,
		},
	}
}
