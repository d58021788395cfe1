package providertest

import (
	"context"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/llm"
)

// Replay is a captured stream (testdata/File) that a provider's mock replays, and what the
// provider must make of it for a request to Model: the described events, the final content
// (as JSON), its usage (the cost aside), the response's id and model, and (when set) the
// stop reason.
type Replay struct {
	Name, File                string
	Model                     core.Model
	Want                      []string
	Content                   string
	Usage                     core.Usage
	ResponseID, ResponseModel string
	Stop                      core.StopReason
}

// Replays runs each replay as a subtest (named Name, else File). The final message must
// also carry the request's model, API and provider.
func (m Mock[R]) Replays(t *testing.T, replays []Replay) {
	for _, tc := range replays {
		name := tc.Name
		if name == "" {
			name = tc.File
		}
		t.Run(name, func(t *testing.T) {
			p, _ := m.Serve(t, llm.Endpoint{}, m.Text("", mockhttp.Faults{SSE: Fixture(t, tc.File)}))
			req := &core.Request{Model: tc.Model, Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}}
			got, final := Run(t, context.Background(), p, req, m.Describe.Event)
			DiffLines(t, got, tc.Want)
			if c := ContentJSON(t, final); c != tc.Content {
				t.Errorf("content:\n%s\nwant:\n%s", c, tc.Content)
			}
			u := final.Usage
			u.Cost = core.Cost{}
			if u != tc.Usage {
				t.Errorf("usage = %+v, want %+v", u, tc.Usage)
			}
			if final.ResponseID != tc.ResponseID || final.ResponseModel != tc.ResponseModel {
				t.Errorf("response id, model = %q, %q, want %q, %q", final.ResponseID, final.ResponseModel, tc.ResponseID, tc.ResponseModel)
			}
			if tc.Stop != "" && final.StopReason != tc.Stop {
				t.Errorf("stopReason = %s, want %s", final.StopReason, tc.Stop)
			}
			if final.API != tc.Model.API || final.Provider != tc.Model.Provider || final.Model != tc.Model.ID {
				t.Errorf("message api/provider/model = %s/%s/%s, want %s/%s/%s", final.API, final.Provider, final.Model, tc.Model.API, tc.Model.Provider, tc.Model.ID)
			}
		})
	}
}
