package providertest

import (
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
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
