package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
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
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr testkit.Buffer
	done := make(chan int, 1)
	go func() { done <- run(args, inR, outW, &stderr, envOf(env)) }()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"prompt","params":{"message":"go"}}`)
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<24)
	var events []map[string]any
	aborted := false
	for lines.Scan() {
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if e, ok := m["error"]; ok {
			t.Fatalf("error reply %v; stderr:\n%s", e, stderr.String())
		}
		params, _ := m["params"].(map[string]any)
		if m["method"] != "event" || params == nil {
			continue
		}
		events = append(events, params)
		if hang && !aborted && params["type"] == "message_update" {
			aborted = true
			send(`{"jsonrpc":"2.0","id":2,"method":"abort"}`)
		}
		if params["type"] == "agent_settled" {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	_ = inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	_ = outW.Close()
	if len(events) == 0 || events[len(events)-1]["type"] != "agent_settled" {
		t.Fatalf("no agent_settled; stderr:\n%s", stderr.String())
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
