package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// responsesModel is o4-mini on the Responses API: a reasoning model with vision.
func responsesModel(t *testing.T) core.Model {
	m := modelByID(t, "o4-mini")
	m.API = ResponsesAPI
	return m
}

// newResponsesProvider is newMockProvider for the Responses API.
func newResponsesProvider(t *testing.T, responses ...mockopenai.Response) (*Provider, *mockopenai.Server) {
	t.Helper()
	return newMockProvider(t, Config{API: ResponsesAPI}, responses...)
}

// outputItems decodes the output items of a recorded response stream's output_item.done
// events, in order, as raw JSON.
func inputItems(t *testing.T, r *mockopenai.Request) []map[string]any {
	t.Helper()
	items, ok := r.Decoded["input"].([]any)
	if !ok {
		t.Fatalf("request has no input list: %s", r.Body)
	}
	out := make([]map[string]any, len(items))
	for i, it := range items {
		out[i] = it.(map[string]any)
	}
	return out
}

// rawInputItems is the request's input items, each as the JSON the provider sent.
func rawInputItems(t *testing.T, r *mockopenai.Request) []string {
	t.Helper()
	var body struct {
		Input []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	items := make([]string, len(body.Input))
	for i, it := range body.Input {
		items[i] = string(it)
	}
	return items
}

// TestResponsesToolLoop: a reasoning summary streams as thinking, the function call with its
// streamed arguments as a tool call "call_id|item_id", and the next request sends the
// reasoning item back byte for byte as the model returned it, before its function call, then
// the function_call_output; store is false and the encrypted reasoning is included.
func TestResponsesToolLoop(t *testing.T) {
	p, srv := newResponsesProvider(t,
		mockopenai.Response{Reasoning: "Look first", ChunkSize: 5, ToolCalls: []mockopenai.ToolCall{{ID: "call_1", Name: "ls", Arguments: `{"path":"."}`}},
			Usage: &mockopenai.Usage{PromptTokens: 100, CompletionTokens: 40, CachedTokens: 60, ReasoningTokens: 30}},
		mockopenai.Response{Text: "Done", ChunkSize: 4},
	)
	model := responsesModel(t)
	req := &core.Request{Model: model, SystemPrompt: "Be brief.", Messages: []core.Message{core.NewUserMessage("list", nil, 1)},
		Tools:         []core.ToolSpec{{Name: "ls", Description: "List", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		ThinkingLevel: core.ThinkingHigh, SessionID: "sess-1"}
	got, first := run(t, context.Background(), p, req)
	providertest.DiffLines(t, got, []string{
		"start", "thinking_start 0", `thinking_delta 0 "Look "`, `thinking_delta 0 "first"`, `thinking_end 0 "Look first"`,
		"toolcall_start 1 id=call_1|fc_mock_1_1 name=ls", `toolcall_delta 1 "{\"pat"`, `toolcall_delta 1 "h\":\"."`, `toolcall_delta 1 "\"}"`,
		`toolcall_end 1 call_1|fc_mock_1_1 ls {"path":"."}`, "done toolUse",
	})
	wantItem := `{"id":"rs_mock_1_0","type":"reasoning","summary":[{"type":"summary_text","text":"Look first"}],"encrypted_content":"enc:rs_mock_1_0"}`
	if sig := first.Content[0].ThinkingSignature; sig != wantItem {
		t.Errorf("thinking signature = %s, want the reasoning item %s", sig, wantItem)
	}
	if first.ResponseID != "resp_mock_1" {
		t.Errorf("responseId = %q", first.ResponseID)
	}
	// 100 input tokens of which 60 cached; output includes the 30 reasoning tokens.
	u := first.Usage
	if u.Input != 40 || u.CacheRead != 60 || u.Output != 40 || u.TotalTokens != 140 {
		t.Errorf("usage = %+v", u)
	}
	wantCost := (40*1.1 + 40*4.4 + 60*0.275) / 1e6
	if d := u.Cost.Total - wantCost; d > 1e-12 || d < -1e-12 {
		t.Errorf("cost total = %v, want %v", u.Cost.Total, wantCost)
	}

	result := &core.ToolResultMessage{ToolCallID: "call_1|fc_mock_1_1", ToolName: "ls", Content: []core.Content{core.TextBlock("a.go")}, Timestamp: 3}
	req.Messages = append(req.Messages, first, result)
	got, _ = run(t, context.Background(), p, req)
	providertest.DiffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "Done"`, `text_end 0 "Done"`, "done stop"})

	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Path != "/v1/responses" {
		t.Fatalf("requests %d, path %q", len(reqs), reqs[0].Path)
	}
	for k := range reqs[0].Header {
		if strings.HasPrefix(k, "X-Stainless") || k == "Idempotency-Key" {
			t.Errorf("SDK header %s sent", k)
		}
	}
	body := reqs[0].Decoded
	if body["store"] != false || body["stream"] != true || body["max_output_tokens"] != 32000.0 || body["prompt_cache_key"] != "sess-1" {
		t.Errorf("store, stream, max_output_tokens, prompt_cache_key = %v %v %v %v", body["store"], body["stream"], body["max_output_tokens"], body["prompt_cache_key"])
	}
	if inc, _ := json.Marshal(body["include"]); string(inc) != `["reasoning.encrypted_content"]` {
		t.Errorf("include = %s", inc)
	}
	if r, _ := json.Marshal(body["reasoning"]); string(r) != `{"effort":"high","summary":"auto"}` {
		t.Errorf("reasoning = %s", r)
	}
	var sent struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(reqs[0].Body, &sent); err != nil || string(sent.Tools) != `[{"strict":false,"name":"ls","description":"List","type":"function","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}]` {
		t.Errorf("tools = %s (%v)", sent.Tools, err)
	}
	raw := rawInputItems(t, reqs[1])
	var kinds []string
	for _, it := range inputItems(t, reqs[1]) {
		k, _ := it["type"].(string)
		if k == "" {
			k = "message:" + it["role"].(string)
		}
		kinds = append(kinds, k)
	}
	if strings.Join(kinds, " ") != "message:developer message:user reasoning function_call function_call_output" {
		t.Fatalf("second request's input items: %v\n%s", kinds, reqs[1].Body)
	}
	if raw[2] != wantItem {
		t.Errorf("reasoning item sent back = %s, want it unchanged: %s", raw[2], wantItem)
	}
	if raw[3] != `{"arguments":"{\"path\":\".\"}","call_id":"call_1","name":"ls","id":"fc_mock_1_1","type":"function_call"}` {
		t.Errorf("function_call = %s", raw[3])
	}
	if raw[4] != `{"output":"a.go","call_id":"call_1","type":"function_call_output"}` {
		t.Errorf("function_call_output = %s", raw[4])
	}
}

// TestResponsesSessionRoundTrip: the assistant message written to a session file and read
// back (a resumed session) still sends its reasoning item, its text under its message id, and
// its function call paired with the reasoning.
func TestResponsesSessionRoundTrip(t *testing.T) {
	p, srv := newResponsesProvider(t,
		mockopenai.Response{Reasoning: "Plan", Text: "Calling", ToolCalls: []mockopenai.ToolCall{{ID: "call_9", Name: "ls", Arguments: `{}`}}},
		mockopenai.Response{Text: "ok"},
	)
	model := responsesModel(t)
	req := &core.Request{Model: model, Messages: []core.Message{core.NewUserMessage("go", nil, 1)}}
	_, first := run(t, context.Background(), p, req)
	line, err := json.Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	var back core.AssistantMessage
	if err := json.Unmarshal(line, &back); err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, &back, &core.ToolResultMessage{ToolCallID: back.Content[2].ID, ToolName: "ls", Content: []core.Content{core.TextBlock("x")}})
	run(t, context.Background(), p, req)
	raw := rawInputItems(t, srv.Requests()[1])
	want := []string{
		`{"content":[{"text":"go","type":"input_text"}],"role":"user"}`,
		`{"id":"rs_mock_1_0","type":"reasoning","summary":[{"type":"summary_text","text":"Plan"}],"encrypted_content":"enc:rs_mock_1_0"}`,
		`{"id":"msg_mock_1_1","content":[{"annotations":[],"text":"Calling","type":"output_text"}],"status":"completed","role":"assistant","type":"message"}`,
		`{"arguments":"{}","call_id":"call_9","name":"ls","id":"fc_mock_1_2","type":"function_call"}`,
		`{"output":"x","call_id":"call_9","type":"function_call_output"}`,
	}
	providertest.DiffLines(t, raw, want)
}

// TestResponsesOtherModelHistory: a transcript from another model sends its thinking as
// text, and its tool calls without item ids (which the API would pair with reasoning items
// it never saw); thinking without a reasoning item drops the id of the call after it.
func TestResponsesOtherModelHistory(t *testing.T) {
	p, srv := newResponsesProvider(t, mockopenai.Response{Text: "ok"}, mockopenai.Response{Text: "ok"})
	model := responsesModel(t)
	other := &core.AssistantMessage{API: "anthropic-messages", Provider: "anthropic", Model: "claude", StopReason: core.StopReasonToolUse,
		Content: []core.Content{{Type: core.ContentThinking, Thinking: "hmm", ThinkingSignature: "sig"}, core.ToolCallBlock("toolu_1|fc_x", "ls", nil)}}
	req := &core.Request{Model: model, Messages: []core.Message{core.NewUserMessage("go", nil, 1), other,
		&core.ToolResultMessage{ToolCallID: "toolu_1|fc_x", ToolName: "ls", Content: []core.Content{core.TextBlock("x")}}}}
	run(t, context.Background(), p, req)
	providertest.DiffLines(t, rawInputItems(t, srv.Requests()[0]), []string{
		`{"content":[{"text":"go","type":"input_text"}],"role":"user"}`,
		`{"id":"msg_1","content":[{"annotations":[],"text":"hmm","type":"output_text"}],"status":"completed","role":"assistant","type":"message"}`,
		`{"arguments":"{}","call_id":"toolu_1","name":"ls","type":"function_call"}`,
		`{"output":"x","call_id":"toolu_1","type":"function_call_output"}`,
	})

	// This model's own message whose thinking has no reasoning item (a Chat Completions
	// signature): the call goes without its fc_ id.
	same := &core.AssistantMessage{API: model.API, Provider: model.Provider, Model: model.ID, StopReason: core.StopReasonToolUse,
		Content: []core.Content{{Type: core.ContentThinking, Thinking: "hmm", ThinkingSignature: "reasoning_content"}, core.ToolCallBlock("call_2|fc_2", "ls", nil)}}
	req.Messages = []core.Message{core.NewUserMessage("go", nil, 1), same, &core.ToolResultMessage{ToolCallID: "call_2|fc_2", ToolName: "ls", Content: []core.Content{core.TextBlock("x")}}}
	run(t, context.Background(), p, req)
	raw := rawInputItems(t, srv.Requests()[1])
	if raw[1] != `{"arguments":"{}","call_id":"call_2","name":"ls","type":"function_call"}` {
		t.Errorf("function_call = %s", raw[1])
	}
}

// TestResponsesImages: images go as input_image data URLs in user input, and a tool result's
// images follow its function_call_output in a user message (function_call_output carries
// text); a model without vision gets neither.
func TestResponsesImages(t *testing.T) {
	p, srv := newResponsesProvider(t, mockopenai.Response{Text: "ok"}, mockopenai.Response{Text: "ok"})
	model := responsesModel(t)
	img := core.ImageBlock("iVBOR", "image/png")
	call := &core.AssistantMessage{API: model.API, Provider: model.Provider, Model: model.ID, StopReason: core.StopReasonToolUse,
		Content: []core.Content{core.ToolCallBlock("call_1|fc_1", "read", nil)}}
	msgs := []core.Message{&core.UserMessage{Content: []core.Content{core.TextBlock("see"), img}}, call,
		&core.ToolResultMessage{ToolCallID: "call_1|fc_1", ToolName: "read", Content: []core.Content{img}}}
	run(t, context.Background(), p, &core.Request{Model: model, Messages: msgs})
	providertest.DiffLines(t, rawInputItems(t, srv.Requests()[0]), []string{
		`{"content":[{"text":"see","type":"input_text"},{"detail":"auto","image_url":"data:image/png;base64,iVBOR","type":"input_image"}],"role":"user"}`,
		`{"arguments":"{}","call_id":"call_1","name":"read","id":"fc_1","type":"function_call"}`,
		`{"output":"(see attached image)","call_id":"call_1","type":"function_call_output"}`,
		`{"content":[{"text":"Attached image(s) from tool result:","type":"input_text"},{"detail":"auto","image_url":"data:image/png;base64,iVBOR","type":"input_image"}],"role":"user"}`,
	})

	model.Input = []string{"text"}
	run(t, context.Background(), p, &core.Request{Model: model, Messages: msgs})
	body := string(srv.Requests()[1].Body)
	if strings.Contains(body, "input_image") {
		t.Errorf("a model without vision was sent images: %s", body)
	}
}

// TestResponsesReasoningEffort: the thinking level becomes reasoning.effort, clamped to the
// model's levels and mapped by its thinkingLevelMap; off and non-reasoning models send no
// reasoning, and only reasoning models ask for the encrypted reasoning.
func TestResponsesReasoningEffort(t *testing.T) {
	low, null := "low", (*string)(nil)
	tests := []struct {
		name      string
		reasoning bool
		levels    map[core.ThinkingLevel]*string
		level     core.ThinkingLevel
		want      string
	}{
		{"medium", true, nil, core.ThinkingMedium, `{"effort":"medium","summary":"auto"}`},
		{"minimal mapped to low (o4-mini)", true, map[core.ThinkingLevel]*string{core.ThinkingMinimal: &low}, core.ThinkingMinimal, `{"effort":"low","summary":"auto"}`},
		{"xhigh without a map entry clamps to high", true, nil, core.ThinkingXHigh, `{"effort":"high","summary":"auto"}`},
		{"xhigh with a map entry", true, map[core.ThinkingLevel]*string{core.ThinkingXHigh: ptr("xhigh")}, core.ThinkingXHigh, `{"effort":"xhigh","summary":"auto"}`},
		{"a level mapped to null clamps up", true, map[core.ThinkingLevel]*string{core.ThinkingMinimal: null}, core.ThinkingMinimal, `{"effort":"low","summary":"auto"}`},
		{"off", true, nil, core.ThinkingOff, `null`},
		{"not a reasoning model", false, nil, core.ThinkingHigh, `null`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, srv := newResponsesProvider(t, mockopenai.Response{Text: "ok"})
			m := responsesModel(t)
			m.Reasoning, m.ThinkingLevelMap = tc.reasoning, tc.levels
			run(t, context.Background(), p, &core.Request{Model: m, ThinkingLevel: tc.level, MaxTokens: 500, Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}})
			body := srv.Requests()[0].Decoded
			if r, _ := json.Marshal(body["reasoning"]); string(r) != tc.want {
				t.Errorf("reasoning = %s, want %s", r, tc.want)
			}
			if _, has := body["include"]; has != tc.reasoning {
				t.Errorf("include sent = %v, want %v", has, tc.reasoning)
			}
			if body["max_output_tokens"] != 500.0 {
				t.Errorf("max_output_tokens = %v", body["max_output_tokens"])
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestResponsesFaults: every fault the mock injects, on the Responses stream, classified as
// on Chat Completions: rate limits and 5xx retryable with the server's delay, overflow, a
// failed or incomplete response, garbage and a stream cut off mid-way.
func TestResponsesFaults(t *testing.T) {
	text := func(s string) mockopenai.Response { return mockopenai.Response{Text: s, ChunkSize: 2} }
	rateLimit := "429 Rate limit reached for gpt-4.1 in organization org-mock on tokens per min (TPM): Limit 30000, Used 30000, Requested 1000. Please try again in 2s."
	faults := []providertest.Fault[mockopenai.Response]{
		{Name: "429 with Retry-After", Resp: mockopenai.RateLimitError("7"),
			Want: []string{"start error", "error error retryable: " + rateLimit}, Kind: core.ErrorRetryable, Status: 429, Retry: 7e9},
		{Name: "500 without a body", Resp: mockopenai.Response{Faults: mockhttp.Faults{Status: 500}},
			Want: []string{"start error", "error error retryable: 500 status code (no body)"}, Kind: core.ErrorRetryable, Status: 500},
		{Name: "503 with an HTML body", Resp: mockopenai.Response{Faults: mockhttp.Faults{Status: 503, Body: "<html>busy</html>", ContentType: "text/html"}},
			Want: []string{"start error", "error error retryable: 503 Service Unavailable: <html>busy</html>"}, Kind: core.ErrorRetryable, Status: 503},
		{Name: "context length exceeded", Resp: mockopenai.ContextLengthError(),
			Want: []string{"start error", "error error overflow: 400 This model's maximum context length is 128000 tokens. However, your messages resulted in 130415 tokens. Please reduce the length of the messages."},
			Kind: core.ErrorOverflow, Status: 400},
		{Name: "401 names the key source", Resp: mockopenai.Response{Faults: mockhttp.Faults{Status: 401}, Error: &mockopenai.ErrorBody{Message: "Incorrect API key provided.", Type: "invalid_request_error", Code: "invalid_api_key"}},
			Want: []string{"start error", "error error auth: 401 Incorrect API key provided. (API key from the test's Config)"}, Kind: core.ErrorAuth, Status: 401},
		{Name: "response.failed", Resp: mockopenai.Response{Text: "ab", FinishReason: "failed"},
			Want: []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_end 0 "ab"`, "error error retryable: Provider error: The model failed to generate a response."},
			Kind: core.ErrorRetryable, Content: `[{"type":"text","text":"ab","textSignature":"{\"v\":1,\"id\":\"msg_mock_1_0\"}"}]`},
		{Name: "response.incomplete at the output limit", Resp: mockopenai.Response{Text: "ab", FinishReason: "length"},
			Want:    []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_end 0 "ab"`, "done length"},
			Content: `[{"type":"text","text":"ab","textSignature":"{\"v\":1,\"id\":\"msg_mock_1_0\"}"}]`},
		{Name: "response.incomplete by the content filter", Resp: mockopenai.Response{Events: []mockopenai.Event{{Text: "ab"}, {Raw: "event: response.incomplete\ndata: {\"type\":\"response.incomplete\",\"sequence_number\":9,\"response\":{\"id\":\"r\",\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"content_filter\"},\"output\":[]}}\n\n"}}, Faults: mockhttp.Faults{NoDone: true}},
			Want: []string{"start", "text_start 0", `text_delta 0 "ab"`, "error error other: Provider stopped the response: incomplete (content_filter)"},
			Kind: core.ErrorOther, Content: `[{"type":"text","text":"ab"}]`},
		{Name: "error event", Resp: mockopenai.Response{Events: []mockopenai.Event{{Raw: "event: error\ndata: {\"type\":\"error\",\"sequence_number\":1,\"code\":\"rate_limit_exceeded\",\"message\":\"Slow down\",\"param\":null}\n\n"}}, Faults: mockhttp.Faults{NoDone: true}},
			Want: []string{"start", "error error retryable: Provider error: Slow down"}, Kind: core.ErrorRetryable},
		{Name: "malformed event mid-stream", Resp: mockopenai.Response{Events: []mockopenai.Event{{Text: "ab"}, {Raw: "data: {\"type\":\"response.output_text.delta\",\"delta\":\"x\n\n"}}},
			Want: []string{"start", "text_start 0", `text_delta 0 "ab"`, `error error retryable: Provider sent malformed data: {"type":"response.output_text.delta","delta":"x (unexpected end of JSON input)`},
			Kind: core.ErrorRetryable, Content: `[{"type":"text","text":"ab"}]`},
		providertest.NotJSON("non-JSON first event", mockopenai.Response{Faults: mockhttp.Faults{SSE: "data: hello\n\n"}}, "hello (not a JSON object)"),
		{Name: "200 with a body that is not an event stream", Resp: mockopenai.Response{Faults: mockhttp.Faults{Body: "<html>maintenance</html>", ContentType: "text/html"}},
			Want: []string{"start", `error error other: Provider returned 200 with a body that is not an event stream (Content-Type "text/html"): <html>maintenance</html>`},
			Kind: core.ErrorOther, Status: 200},
		providertest.Dropped("connection dropped mid-stream", func() mockopenai.Response { r := text("abcdefgh"); r.DropAfter = 5; return r }(),
			`[{"type":"text","text":"abcd"}]`, "start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`),
		{Name: "stream ends without a terminal event", Resp: func() mockopenai.Response { r := text("abcd"); r.NoDone = true; return r }(),
			Want: []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`, `text_end 0 "abcd"`, "error error retryable: Provider stream ended before the response completed (connection closed early)"},
			Kind: core.ErrorRetryable, Content: `[{"type":"text","text":"abcd","textSignature":"{\"v\":1,\"id\":\"msg_mock_1_0\"}"}]`},
	}
	providertest.RunFaults(t, faults, func(t *testing.T, resp mockopenai.Response) ([]string, *core.AssistantMessage) {
		p, _ := newResponsesProvider(t, resp)
		return run(t, context.Background(), p, &core.Request{Model: responsesModel(t), Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}})
	})
}

// TestResponsesCancel: cancelling mid-stream ends the stream aborted with the partial text,
// and the server sees the client go away.
func TestResponsesCancel(t *testing.T) {
	r := mockopenai.Response{Text: "abcdef", ChunkSize: 2, Faults: mockhttp.Faults{StallAfter: 5}}
	p, srv := newResponsesProvider(t, r)
	providertest.CancelMidStream(t, p, &core.Request{Model: responsesModel(t), Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}}, describer)
	providertest.AwaitGone(t, srv.Requests()[0].Gone())
}

// TestAzureResponses: Azure OpenAI through openai-go's azure package: the v1 route below the
// resource's endpoint, api-version in the query, the key in the api-key header (no bearer
// token), the deployment named in the body for a mapped model, and the same stream.
func TestAzureResponses(t *testing.T) {
	for _, tc := range []struct {
		name, suffix, version, wantPath, wantQuery string
	}{
		{"pi's base URL (resource name)", "/openai/v1", "", "/openai/v1/responses", "api-version=v1"},
		{"the resource's bare endpoint", "", "", "/openai/v1/responses", "api-version=v1"},
		{"a dated api-version", "/openai", "2025-04-01-preview", "/openai/responses", "api-version=2025-04-01-preview"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{{Reasoning: "r", Text: "hi"}}})
			t.Cleanup(srv.Close)
			p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: srv.Root() + tc.suffix, APIKey: "az-key", KeySource: "AZURE_OPENAI_API_KEY", IdleTimeout: -1}, API: AzureAPI, AzureAPIVersion: tc.version, Deployments: ParseDeploymentMap(" o4-mini = my-o4 ,bad,=x")})
			if err != nil {
				t.Fatal(err)
			}
			m := responsesModel(t)
			m.API, m.Provider = AzureAPI, AzureProviderName
			got, final := run(t, context.Background(), p, &core.Request{Model: m, Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}})
			if got[len(got)-1] != "done stop" || final.Content[1].Text != "hi" || !strings.HasPrefix(final.Content[0].ThinkingSignature, `{"id":"rs_mock_1_0"`) {
				t.Fatalf("events %v, content %s", got, providertest.ContentJSON(t, final))
			}
			rec := srv.Requests()[0]
			if rec.Path != tc.wantPath || rec.Query != tc.wantQuery {
				t.Errorf("request went to %s?%s, want %s?%s", rec.Path, rec.Query, tc.wantPath, tc.wantQuery)
			}
			if rec.Header.Get("Api-Key") != "az-key" || rec.Header.Get("Authorization") != "" {
				t.Errorf("api-key %q, authorization %q", rec.Header.Get("Api-Key"), rec.Header.Get("Authorization"))
			}
			if rec.Decoded["model"] != "my-o4" {
				t.Errorf("model = %v, want the deployment my-o4", rec.Decoded["model"])
			}
			for k := range rec.Header {
				if strings.HasPrefix(k, "X-Stainless") {
					t.Errorf("SDK header %s sent", k)
				}
			}
		})
	}
}

// TestAzureResponsesRetriesOff: a 429 from Azure is answered once, not retried by the SDK
// (the session's visible retry is the only one), and classified with its delay.
func TestAzureResponsesRetriesOff(t *testing.T) {
	srv := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{mockopenai.RateLimitError("3"), {Text: "late"}}})
	t.Cleanup(srv.Close)
	p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: srv.Root(), APIKey: "k", IdleTimeout: -1}, API: AzureAPI})
	if err != nil {
		t.Fatal(err)
	}
	m := responsesModel(t)
	m.API = AzureAPI
	_, final := run(t, context.Background(), p, &core.Request{Model: m, Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}})
	if f := final.Failure; f == nil || f.Kind != core.ErrorRetryable || f.RetryAfter != 3e9 {
		t.Fatalf("failure %+v", final.Failure)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// TestResponsesIdleTimeout runs in fake time: a Responses stream silent for longer than the
// idle timeout fails with a retryable error, and SSE comments keep it alive.
func TestResponsesIdleTimeout(t *testing.T) {
	pipe := func(t *testing.T, resp mockopenai.Response) *Provider {
		srv := mockopenai.NewHandler(&mockopenai.Script{Responses: []mockopenai.Response{resp}})
		t.Cleanup(srv.Release)
		p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: "http://mock.invalid/v1", APIKey: "k", IdleTimeout: 120 * time.Second, HTTPClient: &http.Client{Transport: mockhttp.PipeTransport{Handler: srv}}}, API: ResponsesAPI})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	req := func() *core.Request {
		return &core.Request{Model: responsesModel(t), Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}}
	}
	t.Run("silence mid-stream", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			// response.created, output_item.added, content_part.added, the delta "ab", then silence.
			p := pipe(t, mockopenai.Response{Text: "abcd", ChunkSize: 2, Faults: mockhttp.Faults{StallAfter: 4}})
			start := time.Now()
			got, _ := run(t, context.Background(), p, req())
			providertest.DiffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "ab"`, "error error retryable: No data from provider for 120s"})
			if d := time.Since(start); d != 120*time.Second {
				t.Errorf("failed after %v, want 2m0s", d)
			}
		})
	})
	t.Run("keep-alive comments keep the stream alive", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var evs []mockopenai.Event
			for range 5 {
				evs = append(evs, mockopenai.Event{DelayMs: 60_000}, mockopenai.Event{Comment: "keep-alive"})
			}
			evs = append(evs, mockopenai.Event{Text: "done"})
			got, _ := run(t, context.Background(), pipe(t, mockopenai.Response{Events: evs}), req())
			providertest.DiffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "done"`, `text_end 0 "done"`, "done stop"})
		})
	})
}

// TestResponsesReasoningWithoutSummary: a reasoning item with no summary still becomes a
// (blank) thinking block signed with the item, which the next request sends back before the
// call; a message's phase is kept in its text signature and sent back with it; a function
// call whose arguments came only with its done item gets them as one fragment.
func TestResponsesReasoningWithoutSummary(t *testing.T) {
	ev := func(typ, fields string) string {
		return "event: " + typ + "\ndata: {\"type\":\"" + typ + "\",\"sequence_number\":0," + fields + "}\n\n"
	}
	item := `{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"gAAAA=="}`
	msg := `{"id":"msg_1","type":"message","status":"completed","role":"assistant","phase":"commentary","content":[{"type":"output_text","annotations":[],"text":"Looking."}]}`
	call := `{"id":"fc_1","type":"function_call","status":"completed","arguments":"{}","call_id":"call_1","name":"ls"}`
	sse := ev("response.created", `"response":{"id":"resp_1","status":"in_progress","output":[]}`) +
		ev("response.output_item.added", `"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}`) +
		ev("response.output_item.done", `"output_index":0,"item":`+item) +
		ev("response.output_item.added", `"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}`) +
		ev("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Looking."`) +
		ev("response.output_item.done", `"output_index":1,"item":`+msg) +
		ev("response.output_item.added", `"output_index":2,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"ls"}`) +
		ev("response.output_item.done", `"output_index":2,"item":`+call) +
		ev("response.completed", `"response":{"id":"resp_1","status":"completed","output":[]}`)
	p, srv := newResponsesProvider(t, mockopenai.Response{Faults: mockhttp.Faults{SSE: sse}}, mockopenai.Response{Text: "ok"})
	model := responsesModel(t)
	req := &core.Request{Model: model, Messages: []core.Message{core.NewUserMessage("go", nil, 1)}}
	got, first := run(t, context.Background(), p, req)
	providertest.DiffLines(t, got, []string{"start", "thinking_start 0", `thinking_delta 0 ""`, `thinking_end 0 ""`,
		"text_start 1", `text_delta 1 "Looking."`, `text_end 1 "Looking."`,
		"toolcall_start 2 id=call_1|fc_1 name=ls", `toolcall_delta 2 "{}"`, "toolcall_end 2 call_1|fc_1 ls {}", "done toolUse"})
	if first.Content[0].ThinkingSignature != item || first.Content[1].TextSignature != `{"v":1,"id":"msg_1","phase":"commentary"}` {
		t.Errorf("signatures %q, %q", first.Content[0].ThinkingSignature, first.Content[1].TextSignature)
	}
	req.Messages = append(req.Messages, first, &core.ToolResultMessage{ToolCallID: "call_1|fc_1", ToolName: "ls", Content: []core.Content{core.TextBlock("x")}})
	run(t, context.Background(), p, req)
	providertest.DiffLines(t, rawInputItems(t, srv.Requests()[1]), []string{
		`{"content":[{"text":"go","type":"input_text"}],"role":"user"}`,
		item,
		`{"id":"msg_1","content":[{"annotations":[],"text":"Looking.","type":"output_text"}],"status":"completed","phase":"commentary","role":"assistant","type":"message"}`,
		`{"arguments":"{}","call_id":"call_1","name":"ls","id":"fc_1","type":"function_call"}`,
		`{"output":"x","call_id":"call_1","type":"function_call_output"}`,
	})
}
