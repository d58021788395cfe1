//go:build linux

package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// TestACPSandbox: an ACP session under --sandbox workspace-write runs bash locally and
// sandboxed, not in the editor's terminal (which the sandbox cannot confine): a write outside
// the workspace is refused, one inside works.
func TestACPSandbox(t *testing.T) {
	if !landlockAvailable() {
		t.Skip("the kernel has no Landlock")
	}
	outside, err := os.MkdirTemp("/var/tmp", "pi-rpc-sandbox-acp-")
	if err != nil {
		t.Skip("needs /var/tmp:", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(outside) })
	target := filepath.Join(outside, "escape")
	mock := mockOf(
		mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_sh", Name: "bash", Arguments: `{"command":"echo RAN; echo x > inside && echo INSIDE-OK; echo x > ` + target + ` && echo ESCAPED"}`}}},
		mockopenai.Response{Text: "done"},
	)
	defer mock.Close()
	client := newEditorClient(map[string]string{})
	conn, sid, _, stop := dialEditor(t, mock, client, sdk.ClientCapabilities{Terminal: true}, "--sandbox", "workspace-write", "--approval", "auto")
	defer stop()
	promptToEnd(t, conn, sid, "run it")
	got := toolResultSeen(t, mock, "call_sh")
	if !strings.Contains(got, "RAN") || !strings.Contains(got, "INSIDE-OK") || strings.Contains(got, "ESCAPED") || !strings.Contains(got, "Permission denied") {
		t.Fatalf("the model saw %q", got)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the command wrote outside the workspace")
	}
	client.mu.Lock()
	methods := strings.Join(client.methods, ",")
	client.mu.Unlock()
	if strings.Contains(methods, "create") {
		t.Fatalf("bash used the editor's terminal under the sandbox: %s", methods)
	}
}
