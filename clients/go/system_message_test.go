package piclient_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	piclient "github.com/pi-rpc/pi-rpc/clients/go"
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/protocol"
)

// A session file pi 1.6.0 wrote, opened with --session: GetMessages decodes its system
// message as a *core.SystemMessage with the sections and tools as written, and GetEntries
// returns the entry (and the usage entry) as the file holds them.
func TestSystemMessageOfAPi16File(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "work")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cwd, _ := json.Marshal(dir)
	file := filepath.Join(root, "pi16.jsonl")
	lines := []string{
		`{"type":"session","version":3,"id":"01a23456-0000-7000-8000-000000000002","timestamp":"2026-12-01T00:00:00.000Z","cwd":` + string(cwd) + `}`,
		`{"type":"model_change","id":"m0000001","parentId":null,"timestamp":"2026-12-01T00:00:00.000Z","provider":"faux","modelId":"faux-1"}`,
		`{"type":"message","id":"s0000001","parentId":"m0000001","timestamp":"2026-12-01T00:00:01.000Z","message":{"role":"system","content":"","sections":{"preamble":"You are a coding assistant."},"toolsAdded":[{"name":"read","description":"Read a file","parameters":{"type":"object"}}],"timestamp":1}}`,
		`{"type":"message","id":"u0000001","parentId":"s0000001","timestamp":"2026-12-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":2}}`,
		`{"type":"usage","id":"w0000001","parentId":"u0000001","timestamp":"2026-12-01T00:00:04.000Z","kind":"cache_warm","provider":"faux","model":"faux-1","usage":{"input":0,"output":0,"cacheRead":50,"cacheWrite":0,"totalTokens":50,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}`,
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "script.json")
	if err := os.WriteFile(script, []byte(writeScript), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := limitCtx(t)
	c, err := piclient.Spawn(ctx, piclient.SpawnOptions{
		Binary: filepath.Join(binDir, "pi-rpc"), Args: []string{"--provider", "faux", "--faux-script", script, "--cwd", dir,
			"--session", file, "--no-context-files", "--log-level", "warn"}, Dir: dir,
		Env: append(os.Environ(), "PI_RPC_HOME="+filepath.Join(root, "home")), Stderr: os.Stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })

	msgs := must[*protocol.MessagesResult](t, "GetMessages")(c.GetMessages(ctx))
	var sys *core.SystemMessage
	for _, m := range msgs.Messages {
		if s, ok := m.(*core.SystemMessage); ok {
			sys = s
		}
	}
	if sys == nil || string(sys.Sections) != `{"preamble":"You are a coding assistant."}` || !strings.Contains(string(sys.ToolsAdded), `"name":"read"`) {
		t.Fatalf("GetMessages = %#v, want the file's system message", msgs.Messages)
	}
	entries := must[*protocol.EntriesResult](t, "GetEntries")(c.GetEntries(ctx, protocol.GetEntriesParams{}))
	var types []string
	for _, e := range entries.Entries {
		var head struct {
			Type    string `json:"type"`
			Message struct {
				Role string `json:"role"`
			} `json:"message"`
		}
		if err := json.Unmarshal(e, &head); err != nil {
			t.Fatal(err)
		}
		types = append(types, head.Type+":"+head.Message.Role)
	}
	// (pi-rpc records the thinking level it opened the session with after them.)
	if got := strings.Join(types, " "); !strings.HasPrefix(got, "model_change: message:system message:user usage:") {
		t.Errorf("GetEntries types = %s", got)
	}
}
