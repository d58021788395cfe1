package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// reasoningItem is the reasoning item the mock returns as output item 0 of response n, as
// the model returned it: what the next request must carry back byte for byte.
func reasoningItem(n, summary string) string {
	id := "rs_mock_" + n + "_0"
	return `{"id":"` + id + `","type":"reasoning","summary":[{"type":"summary_text","text":"` + summary + `"}],"encrypted_content":"enc:` + id + `"}`
}

// inputOf returns a recorded request's input items as raw JSON, in order.
func inputOf(t *testing.T, r *mockopenai.Request) []string {
	t.Helper()
	var body struct {
		Input []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("request body: %v\n%s", err, r.Body)
	}
	out := make([]string, len(body.Input))
	for i, it := range body.Input {
		out[i] = string(it)
	}
	return out
}

// checkReplay checks that the input items hold the reasoning item unchanged, directly before
// the function call it led to (with its item id and arguments), then the call's output.
func checkReplay(t *testing.T, label string, items []string, reasoning, call string) {
	t.Helper()
	for i, it := range items {
		if it != reasoning {
			continue
		}
		if i+2 >= len(items) || !strings.HasPrefix(items[i+1], call) || !strings.Contains(items[i+2], `"type":"function_call_output"`) {
			t.Errorf("%s: after the reasoning item come %v, want the function call %s then its output", label, items[i+1:], call)
		}
		return
	}
	t.Errorf("%s: the reasoning item %s is not in the input, unchanged:\n%s", label, reasoning, strings.Join(items, "\n"))
}

// readNotes is the mock's first answer of a tool loop: reasoning, then a read of notes.txt.
func readNotes() mockopenai.Response {
	return mockopenai.Response{Reasoning: "Read the notes first.", ToolCalls: []mockopenai.ToolCall{{ID: "call_r1", Name: "read", Arguments: `{"path":"notes.txt"}`}},
		Usage: &mockopenai.Usage{PromptTokens: 1000, CompletionTokens: 50, CachedTokens: 800, ReasoningTokens: 30}}
}

func notesDir(t *testing.T) string {
	t.Helper()
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("buy bread\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return cwd
}

// TestResponsesToolLoop runs a tool loop through the binary with --api responses: the
// reasoning summary streams as thinking, the read runs, the next request is answered 429 and
// retried visibly, and the request after it carries the first response's reasoning item
// unchanged, before its function call, then the function_call_output; store is false with
// the encrypted reasoning included and the effort the thinking level asks for.
func TestResponsesToolLoop(t *testing.T) {
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{readNotes(), mockopenai.RateLimitError("0"), {Text: "The notes say: buy bread."}}})
	t.Cleanup(mock.Close)
	p := start(t, options{cwd: notesDir(t), mock: mock, args: []string{"--api", "responses", "--model", "o4-mini", "--thinking", "high"}})
	p.promptCompleted("What do my notes say?")
	loop := toolLoopStreamOf(p.history())
	thinking, toolEnd, retried, usage := loop.thinking, loop.toolEnd, loop.retried, loop.firstUsage
	if !thinking || !toolEnd || !retried {
		t.Errorf("thinking_delta %v, toolcall_end %v, auto_retry_start %v", thinking, toolEnd, retried)
	}
	if text, _ := textDeltas(p.history()); !strings.Contains(text, "The notes say: buy bread.") {
		t.Errorf("streamed text = %q", text)
	}
	if usage["input"] != 200.0 || usage["cacheRead"] != 800.0 || usage["output"] != 50.0 {
		t.Errorf("first reply's usage = %s", toJSON(usage))
	}

	reqs := mock.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d, want 3 (the call, the 429, its retry)", len(reqs))
	}
	first := reqs[0]
	if first.Path != "/v1/responses" || first.Header.Get("Authorization") != "Bearer test" || first.Decoded["store"] != false ||
		toJSON(first.Decoded["include"]) != `["reasoning.encrypted_content"]` || toJSON(first.Decoded["reasoning"]) != `{"effort":"high","summary":"auto"}` {
		t.Errorf("first request: %s %q store %v include %s reasoning %s", first.Path, first.Header.Get("Authorization"),
			first.Decoded["store"], toJSON(first.Decoded["include"]), toJSON(first.Decoded["reasoning"]))
	}
	for _, r := range reqs[1:] {
		checkReplay(t, "request after the tool call", inputOf(t, r), reasoningItem("1", "Read the notes first."),
			`{"arguments":"{\"path\":\"notes.txt\"}","call_id":"call_r1","name":"read","id":"fc_mock_1_1","type":"function_call"}`)
	}
}

// TestAzureResponsesToolLoop is the tool loop through Azure OpenAI's URL shape, configured by
// the environment alone: {base}/openai/v1/responses?api-version=v1 with the api-key header
// (no bearer token), the deployment as the model, and the reasoning item sent back unchanged.
func TestAzureResponsesToolLoop(t *testing.T) {
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{readNotes(), {Text: "Bread."}}})
	t.Cleanup(mock.Close)
	p := start(t, options{cwd: notesDir(t), args: []string{"--provider", "azure-openai-responses", "--model", "o4-mini"},
		env: []string{"AZURE_OPENAI_API_KEY=az-secret", "AZURE_OPENAI_BASE_URL=" + mock.Root() + "/openai/v1", "AZURE_OPENAI_DEPLOYMENT_NAME_MAP=o4-mini=o4-prod"}})
	p.promptCompleted("What do my notes say?")
	reqs := mock.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	for i, r := range reqs {
		if r.Path != "/openai/v1/responses" || r.Query != "api-version=v1" || r.Header.Get("Api-Key") != "az-secret" || r.Header.Get("Authorization") != "" || r.Decoded["model"] != "o4-prod" {
			t.Errorf("request %d: %s?%s api-key %q authorization %q model %v", i+1, r.Path, r.Query, r.Header.Get("Api-Key"), r.Header.Get("Authorization"), r.Decoded["model"])
		}
	}
	checkReplay(t, "second request", inputOf(t, reqs[1]), reasoningItem("1", "Read the notes first."),
		`{"arguments":"{\"path\":\"notes.txt\"}","call_id":"call_r1","name":"read","id":"fc_mock_1_1","type":"function_call"}`)
}

// TestResponsesReasoningSurvivesResume saves a Responses session with a reasoning item and
// its function call, ends the process, resumes the file with --session in a new one and
// prompts again: the request carries the reasoning item unchanged, before its call.
func TestResponsesReasoningSurvivesResume(t *testing.T) {
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{readNotes(), {Text: "Bread."}, {Text: "Still bread."}}})
	t.Cleanup(mock.Close)
	cwd, home := notesDir(t), t.TempDir()
	args := []string{"--api", "responses", "--model", "o4-mini"}
	p := start(t, options{cwd: cwd, home: home, mock: mock, args: args})
	p.promptCompleted("What do my notes say?")
	var st struct {
		SessionFile string `json:"sessionFile"`
	}
	p.result("getState", nil, &st)
	if st.SessionFile == "" {
		t.Fatal("getState has no sessionFile")
	}
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Fatalf("first process exited %d", code)
	}

	p2 := start(t, options{cwd: cwd, home: home, mock: mock, args: append(args, "--session", st.SessionFile)})
	p2.promptCompleted("And now?")
	reqs := mock.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d, want 3", len(reqs))
	}
	items := inputOf(t, reqs[2])
	checkReplay(t, "resumed request", items, reasoningItem("1", "Read the notes first."),
		`{"arguments":"{\"path\":\"notes.txt\"}","call_id":"call_r1","name":"read","id":"fc_mock_1_1","type":"function_call"}`)
	if last := items[len(items)-1]; !strings.Contains(last, "And now?") {
		t.Errorf("last input item = %s, want the new prompt", last)
	}
}

// TestResponsesFaultsThroughBinary: on the Responses API a response.failed (server_error) is
// retried visibly, a context overflow compacts the session and continues, and a response
// cut off at max_output_tokens ends with stop reason length.
func TestResponsesFaultsThroughBinary(t *testing.T) {
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{
		{Text: "par", FinishReason: "failed"},
		{Text: bigText(120000), ChunkSize: 6000},
		mockopenai.ContextLengthError(),
		{Text: "## Goal\nSummary of the chat."},
		{Text: "Answer after compaction."},
		{Text: "cut sho", FinishReason: "length"},
	}})
	t.Cleanup(mock.Close)
	p := start(t, options{mock: mock, args: []string{"--api", "responses", "--model", "gpt-4.1", "--no-session"}})
	for _, msg := range []string{"talk a lot", "now overflow", "be long"} {
		p.promptCompleted(msg)
	}
	var retries, compactions int
	var lastStop string
	for _, m := range p.history() {
		if !m.isEvent() {
			continue
		}
		switch m.typ() {
		case "auto_retry_start":
			retries++
			if msg, _ := m.ev["errorMessage"].(string); !strings.Contains(msg, "The model failed to generate a response.") {
				t.Errorf("auto_retry_start errorMessage = %q", msg)
			}
		case "compaction_end":
			compactions++
		case "message_end":
			if msg, _ := m.ev["message"].(map[string]any); msg["role"] == "assistant" {
				lastStop, _ = msg["stopReason"].(string)
			}
		}
	}
	if retries != 1 || compactions != 1 || lastStop != "length" {
		t.Errorf("retries %d, compactions %d, last stop reason %q; want 1, 1, length", retries, compactions, lastStop)
	}
	if text, _ := textDeltas(p.history()); !strings.Contains(text, "Answer after compaction.") {
		t.Errorf("streamed text = %q", text)
	}
	if n := len(mock.Requests()); n != 6 {
		t.Errorf("requests = %d, want 6", n)
	}
}
