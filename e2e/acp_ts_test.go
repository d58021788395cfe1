package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// The official ACP TypeScript SDK drives the binary (e2e/acp-npm/client.test.mjs): every
// message is validated with the SDK's schemas. `make test` installs the package (npm ci).
func TestACPTypeScriptSDK(t *testing.T) {
	needACPNpm(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("line one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edit := func(id, old, new string) mockopenai.Response {
		args, _ := json.Marshal(map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": old, "newText": new}}})
		return mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: id, Name: "edit", Arguments: string(args)}}}
	}
	mock := mockOf(
		mockopenai.Response{Text: "Hi there"},
		mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_read", Name: "read", Arguments: `{"path":"a.txt"}`}}},
		mockopenai.Response{Text: "It says line one."},
		edit("call_e1", "one", "uno"), mockopenai.Response{Text: "edited"},
		edit("call_e2", "uno", "eins"), mockopenai.Response{Text: "not edited"},
		edit("call_e3", "uno", "un"),
		mockopenai.Response{Text: "a"}, mockopenai.Response{Text: "b"}, mockopenai.Response{Text: "a2"},
	)
	defer mock.Close()
	runACPNode(t, "client.test.mjs", mock, ws)
}

// The SDK client again (e2e/acp-npm/always_cancel.test.mjs): allow_always and reject_always
// remembered per tool, and session/cancel while a tool runs.
func TestACPTypeScriptSDKAlwaysAndCancel(t *testing.T) {
	needACPNpm(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mock := mockOf(
		editCall("call_e1", "a.txt", "one", "uno"), mockopenai.Response{Text: "edited"},
		editCall("call_e2", "a.txt", "uno", "eins"), mockopenai.Response{Text: "edited again"},
		toolCall("call_w1", "write", map[string]any{"path": "b.txt", "content": "b"}), mockopenai.Response{Text: "refused"},
		toolCall("call_w2", "write", map[string]any{"path": "c.txt", "content": "c"}), mockopenai.Response{Text: "refused again"},
		toolCall("call_bash", "bash", map[string]any{"command": "sleep 600"}),
		mockopenai.Response{Text: "after"},
	)
	defer mock.Close()
	runACPNode(t, "always_cancel.test.mjs", mock, ws)
}

// needACPNpm fails the test unless e2e/acp-npm is installed (make test installs it: npm ci).
func needACPNpm(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("acp-npm/node_modules/@agentclientprotocol/sdk/package.json"); err != nil {
		t.Fatal("e2e/acp-npm is not installed: run make acp-npm (npm ci in e2e/acp-npm)")
	}
}

// runACPNode runs script, a test of e2e/acp-npm, with node: it drives the binary (PI_RPC_BIN)
// against mock in the workspace ws, with a fresh HOME. A failing script fails the test with
// its output; a passing one's output is logged.
func runACPNode(t *testing.T, script string, mock *mockopenai.Server, ws string) {
	t.Helper()
	cmd := exec.Command("node", script)
	cmd.Dir = "acp-npm"
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PI_RPC_BIN=" + binary, "MOCK_URL=" + mock.URL(), "WORKSPACE=" + ws}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, out)
	}
	t.Logf("%s", out)
}
