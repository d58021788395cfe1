package e2e_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
)

// googleModels is a models.json with one provider on api google-generative-ai at the mock,
// its key from an environment variable, and one thinking model priced per million tokens.
func googleModels(t *testing.T, dir string, mock *mockgoogle.Server) string {
	t.Helper()
	path := filepath.Join(dir, "models.json")
	models := fmt.Sprintf(`{"providers":{"gem":{"baseUrl":%q,"api":"google-generative-ai","apiKey":"GEM_KEY",
  "models":[{"id":"gemini-3-flash-preview","reasoning":true,"input":["text","image"],"contextWindow":1048576,"maxTokens":65536,
    "cost":{"input":0.5,"output":3,"cacheRead":0.05,"cacheWrite":0}}]}}}`, mock.URL())
	if err := os.WriteFile(path, []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// partsOf returns a recorded request's contents as (role, parts).
func partsOf(body map[string]any) []map[string]any {
	return objectsAt(body, "contents")
}

// TestGoogleToolLoop runs a tool loop through the binary on a models.json provider with api
// google-generative-ai: the thinking model's thought summary streams as thinking, its signed
// function call runs, the next request is answered 429 RESOURCE_EXHAUSTED and retried
// visibly, and the request after it carries the function call with its thoughtSignature
// unchanged and the functionResponse; usage and cost follow usageMetadata and the model's
// prices.
func TestGoogleToolLoop(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("buy bread\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const sig = "CiQBcsjafnNpZ25lZC9jYWxsKys=" // opaque base64, '+' and '/' included
	mock := mockgoogle.New(&mockgoogle.Script{Responses: []mockgoogle.Response{
		{Reasoning: "I need the notes.", Signature: sig,
			ToolCalls: []mockgoogle.ToolCall{{Name: "read", Arguments: `{"path":"notes.txt"}`}},
			Usage:     &mockgoogle.Usage{PromptTokenCount: 1000, CandidatesTokenCount: 20, ThoughtsTokenCount: 80, CachedContentTokenCount: 600}},
		mockgoogle.RateLimitError("0.01s"),
		{Text: "The notes say: buy bread."},
	}})
	t.Cleanup(mock.Close)
	p := start(t, options{cwd: cwd, home: home, args: []string{"--models", googleModels(t, home, mock), "--model", "gem/gemini-3-flash-preview", "--thinking", "medium"},
		env: []string{"GEM_KEY=gem-secret"}})
	p.promptCompleted("What do my notes say?")

	loop := toolLoopStreamOf(p.history())
	thinking, toolEnd, retried, firstUsage := loop.thinking, loop.toolEnd, loop.retried, loop.firstUsage
	if retried && !strings.Contains(loop.retryError, "429 RESOURCE_EXHAUSTED") {
		t.Errorf("auto_retry_start errorMessage = %q", loop.retryError)
	}
	if !thinking || !toolEnd || !retried {
		t.Errorf("thinking_delta seen %v, toolcall_end seen %v, auto_retry_start seen %v", thinking, toolEnd, retried)
	}
	if text, _ := textDeltas(p.history()); !strings.Contains(text, "The notes say: buy bread.") {
		t.Errorf("streamed text = %q", text)
	}
	// input 1000-600 at $0.5, cached 600 at $0.05, output 20+80 at $3, per million.
	cost, _ := firstUsage["cost"].(map[string]any)
	if firstUsage["input"] != 400.0 || firstUsage["cacheRead"] != 600.0 || firstUsage["output"] != 100.0 ||
		cost == nil || math.Abs(cost["total"].(float64)-(400*0.5+600*0.05+100*3)/1e6) > 1e-12 {
		t.Errorf("first reply's usage = %s", toJSON(firstUsage))
	}

	reqs := mock.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d, want 3 (the call, the 429, its retry)", len(reqs))
	}
	first := reqs[0]
	if first.Header.Get("X-Goog-Api-Key") != "gem-secret" || mockgoogle.ModelOf(first) != "gemini-3-flash-preview" {
		t.Errorf("first request: key %q, model %q", first.Header.Get("X-Goog-Api-Key"), mockgoogle.ModelOf(first))
	}
	if tc := toJSON(first.Decoded["generationConfig"]); !strings.Contains(tc, `"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"MEDIUM"}`) {
		t.Errorf("generationConfig = %s", tc)
	}
	if si := toJSON(first.Decoded["systemInstruction"]); !strings.Contains(si, `"parts":[{"text":`) {
		t.Errorf("systemInstruction = %s", si)
	}
	for i, r := range reqs[1:] {
		contents := partsOf(r.Decoded)
		if len(contents) != 3 {
			t.Fatalf("request %d has %d contents, want user, model, function response: %s", i+2, len(contents), toJSON(contents))
		}
		model := toJSON(contents[1]["parts"])
		if contents[1]["role"] != "model" || !strings.Contains(model, `{"text":"I need the notes.","thought":true}`) ||
			!strings.Contains(model, `{"functionCall":{"args":{"path":"notes.txt"},"name":"read"},"thoughtSignature":"`+sig+`"}`) {
			t.Errorf("request %d: model turn sent back = %s", i+2, model)
		}
		resp := toJSON(contents[2]["parts"])
		if contents[2]["role"] != "user" || !strings.Contains(resp, `"functionResponse":{"name":"read","response":{"output":"`) || !strings.Contains(resp, "buy bread") {
			t.Errorf("request %d: function response = %s", i+2, resp)
		}
	}
}

// TestMockGoogleCommand runs cmd/mock-openai --dialect google as a process with a script in
// the format the dialects share, points pi-rpc at the URL it prints with --provider google and no key (an
// explicit endpoint needs none), and checks that it exits on stdin EOF.
func TestMockGoogleCommand(t *testing.T) {
	runMockCommand(t, "google", func(url string) options {
		return options{args: []string{"--provider", "google", "--base-url", url}}
	})
}

// TestGoogleSignaturesSurviveResume saves a Gemini session whose thought, function-call and
// text parts carry thought signatures, ends the process, resumes the session with --continue
// in a new one and continues it: the next request carries every signature unchanged, on its
// own part.
func TestGoogleSignaturesSurviveResume(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const sigThought, sigCall, sigText = "c2lnLXRob3VnaHQ=", "c2lnLWNhbGwvKzE=", "c2lnLXRleHQtMg=="
	mock := mockgoogle.New(&mockgoogle.Script{Responses: []mockgoogle.Response{
		{Events: []mockgoogle.Event{
			{Reasoning: "Read a.txt.", Signature: sigThought},
			{ToolCall: &mockgoogle.ToolCall{Name: "read", Arguments: `{"path":"a.txt"}`, Signature: sigCall}},
		}},
		{Text: "It says alpha.", Signature: sigText},
		{Text: "Still alpha."},
	}})
	t.Cleanup(mock.Close)
	models := googleModels(t, home, mock)
	args := []string{"--models", models, "--model", "gem/gemini-3-flash-preview", "--thinking", "low"}
	env := []string{"GEM_KEY=k"}

	p := start(t, options{cwd: cwd, home: home, args: args, env: env})
	p.promptCompleted("What is in a.txt?")
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Fatalf("first process exited %d", code)
	}

	p2 := start(t, options{cwd: cwd, home: home, args: append(args, "--continue"), env: env})
	p2.promptCompleted("And now?")
	reqs := mock.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d, want 3", len(reqs))
	}
	contents := partsOf(reqs[2].Decoded)
	if len(contents) != 5 {
		t.Fatalf("resumed request has %d contents, want user, model, function response, model, user: %s", len(contents), toJSON(contents))
	}
	if got, want := toJSON(contents[1]["parts"]), `[{"text":"Read a.txt.","thought":true,"thoughtSignature":"`+sigThought+`"},`+
		`{"functionCall":{"args":{"path":"a.txt"},"name":"read"},"thoughtSignature":"`+sigCall+`"}]`; got != want {
		t.Errorf("first model turn after resume = %s\nwant %s", got, want)
	}
	if got, want := toJSON(contents[3]["parts"]), `[{"text":"It says alpha.","thoughtSignature":"`+sigText+`"}]`; got != want {
		t.Errorf("second model turn after resume = %s\nwant %s", got, want)
	}
}
