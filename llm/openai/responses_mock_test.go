package openai

import (
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// TestMockResponsesStreamDecodes: what internal/mockopenai streams for the Responses API is
// what openai-go's Responses client reads: every event decodes to the SDK's event union with
// its type, the reasoning item keeps its id and encrypted content, the function call its call
// id and arguments, and the completed response its usage.
func TestMockResponsesStreamDecodes(t *testing.T) {
	s := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{{Reasoning: "Think", Text: "Hi", ChunkSize: 2,
		ToolCalls: []mockopenai.ToolCall{{ID: "call_1", Name: "ls", Arguments: `{"path":"."}`}},
		Usage:     &mockopenai.Usage{PromptTokens: 10, CompletionTokens: 3, CachedTokens: 4, ReasoningTokens: 2}}}})
	defer s.Close()
	resp, err := s.Client().Post(s.URL()+"/responses", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	stream := ssestream.NewStream[responses.ResponseStreamEventUnion](ssestream.NewDecoder(resp), nil)
	defer func() { _ = stream.Close() }()
	var summary, text, args strings.Builder
	var types []string
	var done responses.Response
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		switch e := ev.AsAny().(type) {
		case responses.ResponseReasoningSummaryTextDeltaEvent:
			summary.WriteString(e.Delta)
		case responses.ResponseTextDeltaEvent:
			text.WriteString(e.Delta)
		case responses.ResponseFunctionCallArgumentsDeltaEvent:
			args.WriteString(e.Delta)
		case responses.ResponseCompletedEvent:
			done = e.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if summary.String() != "Think" || text.String() != "Hi" || args.String() != `{"path":"."}` {
		t.Errorf("summary %q, text %q, arguments %q", summary.String(), text.String(), args.String())
	}
	if types[0] != "response.created" || types[len(types)-1] != "response.completed" {
		t.Errorf("events %v", types)
	}
	if len(done.Output) != 3 {
		t.Fatalf("completed output %+v", done.Output)
	}
	rs := done.Output[0].AsReasoning()
	if rs.ID == "" || rs.EncryptedContent != "enc:"+rs.ID || len(rs.Summary) != 1 || rs.Summary[0].Text != "Think" {
		t.Errorf("reasoning item %+v", rs)
	}
	fc := done.Output[2].AsFunctionCall()
	if fc.CallID != "call_1" || fc.Name != "ls" || fc.Arguments != `{"path":"."}` {
		t.Errorf("function call %+v", fc)
	}
	u := done.Usage
	if u.InputTokens != 10 || u.OutputTokens != 3 || u.InputTokensDetails.CachedTokens != 4 || u.OutputTokensDetails.ReasoningTokens != 2 {
		t.Errorf("usage %+v", u)
	}
}
