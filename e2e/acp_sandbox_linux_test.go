//go:build linux

package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// TestACPSandbox: an ACP session under --sandbox workspace-write runs bash locally and
// sandboxed, not in the editor's terminal (which the sandbox cannot confine): a write outside
// the workspace is refused, one inside works.
func TestACPSandbox(t *testing.T) {
	outside := sandboxDir(t, "pi-rpc-sandbox-acp-")
	target := filepath.Join(outside, "escape")
	mock := mockOf(
		mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_sh", Name: "bash", Arguments: `{"command":"echo RAN; echo x > inside && echo INSIDE-OK; echo x > ` + target + ` && echo ESCAPED"}`}}},
		mockopenai.Response{Text: "done"},
	)
	defer mock.Close()
	client, conn, sid, _, stop := dialEditor(t, mock, sdk.ClientCapabilities{Terminal: true}, "--sandbox", "workspace-write", "--approval", "auto")
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

// TestACPSandboxConfigOption: on an agent started without --sandbox, initialize's agent info
// reports the sandbox, a session offers it as the sandbox config option (off, workspace-write,
// read-only) beside the approval mode option, and choosing workspace-write sandboxes the next
// bash: a write outside the workspace that ran in the editor's terminal with the sandbox off
// is refused, locally; off again goes back to the terminal.
func TestACPSandboxConfigOption(t *testing.T) {
	outside := sandboxDir(t, "pi-rpc-sandbox-acp-")
	bash := func(id, name string) mockopenai.Response {
		target := filepath.Join(outside, name)
		return mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: id, Name: "bash", Arguments: `{"command":"echo RAN; echo x > ` + target + ` && echo ESCAPED"}`}}}
	}
	mock := mockOf(
		bash("call_off", "off"), mockopenai.Response{Text: "done"},
		bash("call_ww", "ww"), mockopenai.Response{Text: "done"},
		bash("call_off2", "off2"), mockopenai.Response{Text: "done"},
	)
	defer mock.Close()
	client := newEditorClient()
	conn, stop := spawnACP(t, mock, t.TempDir(), client, "--approval", "auto")
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	initRes, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: sdk.ClientCapabilities{Terminal: true}})
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		PiRPC struct {
			Sandbox struct {
				Mode        string `json:"mode"`
				LandlockABI int    `json:"landlockABI"`
			} `json:"sandbox"`
		} `json:"pi-rpc"`
	}
	if initRes.AgentInfo == nil {
		t.Fatal("initialize has no agentInfo")
	}
	raw, _ := json.Marshal(initRes.AgentInfo.Meta)
	if err := json.Unmarshal(raw, &info); err != nil || info.PiRPC.Sandbox.Mode != "off" || info.PiRPC.Sandbox.LandlockABI < 1 {
		t.Fatalf("agentInfo._meta = %s", raw)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	sandboxOption := func(opts []sdk.SessionConfigOption) (string, []string) {
		t.Helper()
		for _, o := range opts {
			if o.Select != nil && o.Select.Id == "sandbox" {
				var values []string
				for _, v := range *o.Select.Options.Ungrouped {
					values = append(values, string(v.Value))
				}
				return string(o.Select.CurrentValue), values
			}
		}
		t.Fatalf("no sandbox config option in %+v", opts)
		return "", nil
	}
	if cur, values := sandboxOption(sess.ConfigOptions); cur != "off" || strings.Join(values, ",") != "off,workspace-write,read-only" {
		t.Fatalf("the sandbox option: %q of %v", cur, values)
	}
	if sess.ConfigOptions[0].Select == nil || sess.ConfigOptions[0].Select.Id != "mode" || sess.ConfigOptions[0].Select.CurrentValue != "auto" {
		t.Fatalf("the first config option is not the approval mode: %+v", sess.ConfigOptions[0])
	}
	terminals := func() int {
		client.mu.Lock()
		defer client.mu.Unlock()
		return strings.Count(strings.Join(client.methods, ","), "create")
	}
	set := func(value string) {
		t.Helper()
		res, err := conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: sess.SessionId, ConfigId: "sandbox", Value: sdk.SessionConfigValueId(value)}})
		if err != nil {
			t.Fatalf("set_config_option sandbox %s: %v", value, err)
		}
		if cur, _ := sandboxOption(res.ConfigOptions); cur != value {
			t.Fatalf("after set_config_option sandbox %s the option says %q", value, cur)
		}
	}

	promptToEnd(t, conn, sess.SessionId, "unsandboxed")
	if got := toolResultSeen(t, mock, "call_off"); !strings.Contains(got, "ESCAPED") || terminals() != 1 {
		t.Fatalf("with the sandbox off (%d terminals) the model saw %q", terminals(), got)
	}
	set("workspace-write")
	promptToEnd(t, conn, sess.SessionId, "sandboxed")
	if got := toolResultSeen(t, mock, "call_ww"); !strings.Contains(got, "RAN") || strings.Contains(got, "ESCAPED") || !strings.Contains(got, "Permission denied") {
		t.Fatalf("under workspace-write the model saw %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "ww")); err == nil || terminals() != 1 {
		t.Fatalf("under workspace-write the command wrote outside (%v) or used the terminal (%d)", err, terminals())
	}
	set("off")
	promptToEnd(t, conn, sess.SessionId, "unsandboxed again")
	if got := toolResultSeen(t, mock, "call_off2"); !strings.Contains(got, "ESCAPED") || terminals() != 2 {
		t.Fatalf("with the sandbox off again (%d terminals) the model saw %q", terminals(), got)
	}
	_, err = conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: sess.SessionId, ConfigId: "sandbox", Value: "strict"}})
	if err == nil || !strings.Contains(err.Error(), "strict") {
		t.Fatalf("an unknown sandbox mode: %v", err)
	}
}
