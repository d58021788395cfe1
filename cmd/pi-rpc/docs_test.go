package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

// docExamples returns the JSON blocks of docs/testing.md whose fence is "```json kind".
func docExamples(t *testing.T, kind string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "testing.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)```json " + regexp.QuoteMeta(kind) + "\n(.*?)```")
	var out []string
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		out = append(out, m[1])
	}
	return out
}

// promptToSettled runs pi-rpc with args, sends one prompt, answers nothing else (an abort if
// hang is set, once the reply has started streaming), and returns the notifications up to and
// including agent_settled.
func promptToSettled(t *testing.T, env map[string]string, args []string, hang bool) []map[string]any {
	t.Helper()
	c := runConn(t, env, args...)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"prompt","params":{"message":"go"}}`)
	var events []map[string]any
	aborted := false
	for {
		m := c.next("agent_settled")
		if e, ok := m["error"]; ok {
			t.Fatalf("error reply %v; stderr:\n%s", e, c.stderr.String())
		}
		params, _ := m["params"].(map[string]any)
		if m["method"] != "event" || params == nil {
			continue
		}
		events = append(events, params)
		if hang && !aborted && params["type"] == "message_update" {
			aborted = true
			c.send(`{"jsonrpc":"2.0","id":2,"method":"abort"}`)
		}
		if params["type"] == "agent_settled" {
			break
		}
	}
	if code := c.exit(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, c.stderr.String())
	}
	return events
}

func countEvents(events []map[string]any, typ string, role string) int {
	n := 0
	for _, e := range events {
		if e["type"] != typ {
			continue
		}
		if msg, _ := e["message"].(map[string]any); role == "" || (msg != nil && msg["role"] == role) {
			n++
		}
	}
	return n
}

// Every faux script in docs/testing.md loads, and one prompt uses exactly its responses.
func TestDocsFauxExamples(t *testing.T) {
	examples := docExamples(t, "faux-script")
	if len(examples) < 4 {
		t.Fatalf("%d faux examples found in docs/testing.md", len(examples))
	}
	for i, ex := range examples {
		dir, cwd := t.TempDir(), t.TempDir()
		path := filepath.Join(dir, "turns.json")
		if err := os.WriteFile(path, []byte(ex), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cwd, "README.md"), []byte("hello\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		script, err := faux.LoadScript(path)
		if err != nil {
			t.Errorf("example %d: %v", i+1, err)
			continue
		}
		events := promptToSettled(t, map[string]string{"PI_RPC_HOME": dir},
			[]string{"--provider", "faux", "--faux-script", path, "--cwd", cwd, "--no-session", "--no-context-files"},
			strings.Contains(ex, "hangAfter"))
		if got := countEvents(events, "message_end", "assistant"); got != len(script.Steps) {
			t.Errorf("example %d: %d assistant messages for %d responses", i+1, got, len(script.Steps))
		}
	}
}

// Every mock-openai script in docs/testing.md loads, and one prompt against pi-rpc's OpenAI
// provider (no key: a named local server) takes exactly its responses.
func TestDocsMockOpenAIExamples(t *testing.T) {
	examples := docExamples(t, "mock-openai-script")
	if len(examples) < 4 {
		t.Fatalf("%d mock-openai examples found in docs/testing.md", len(examples))
	}
	for i, ex := range examples {
		dir := t.TempDir()
		path := filepath.Join(dir, "script.json")
		if err := os.WriteFile(path, []byte(ex), 0o644); err != nil {
			t.Fatal(err)
		}
		script, err := mockopenai.LoadScript(path)
		if err != nil {
			t.Errorf("example %d: %v", i+1, err)
			continue
		}
		mock := mockopenai.New(script)
		promptToSettled(t, map[string]string{"PI_RPC_HOME": dir},
			[]string{"--base-url", mock.URL(), "--model", "gpt-4.1-mini", "--cwd", t.TempDir(), "--no-session", "--no-context-files"}, false)
		if got := len(mock.Requests()); got != len(script.Responses) || mock.Pending() != 0 {
			t.Errorf("example %d: %d requests for %d responses, %d left", i+1, got, len(script.Responses), mock.Pending())
		}
		mock.Close()
	}
}
