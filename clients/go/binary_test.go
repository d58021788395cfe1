package piclient_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	piclient "github.com/pi-rpc/pi-rpc/clients/go"
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// The tests in this file, and the package's examples, spawn the real pi-rpc binary, built
// once by TestMain into a temporary directory that is put first on PATH: the examples start
// "pi-rpc" as a user's program does.

// piRPC is the pi-rpc TestMain builds; binDir holds it ("" in a helper process, which builds
// nothing).
var (
	piRPC  = testkit.Command{Pkg: "../../cmd/pi-rpc", Module: "../.."}
	binDir string
)

func TestMain(m *testing.M) {
	// TestHelperProcess re-executes this test binary as a fake server; it needs no pi-rpc.
	if os.Getenv("PICLIENT_HELPER") != "" {
		os.Exit(m.Run())
	}
	bin, err := piRPC.Build()
	if err == nil {
		binDir = filepath.Dir(bin)
		err = os.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "clients/go:", err)
		piRPC.Remove()
		os.Exit(1)
	}
	code := m.Run()
	piRPC.Remove()
	os.Exit(code)
}

// writeScript is a faux script whose first reply writes note.txt and whose second ends the run.
const writeScript = `{"responses": [
  {"content": [{"type": "toolCall", "name": "write", "arguments": {"path": "note.txt", "content": "hi\n"}}]},
  {"content": [{"type": "text", "text": "Saved."}]}
]}`

// spawnBinary starts the built pi-rpc on writeScript in a fresh directory, with extra flags.
func spawnBinary(t *testing.T, opts piclient.Options, extra ...string) (*piclient.Client, string) {
	t.Helper()
	root := t.TempDir()
	dir, home := filepath.Join(root, "work"), filepath.Join(root, "home")
	for _, d := range []string{dir, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(root, "script.json")
	if err := os.WriteFile(script, []byte(writeScript), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--provider", "faux", "--faux-script", script, "--cwd", dir,
		"--no-session", "--no-context-files", "--log-level", "warn"}, extra...)
	c, err := piclient.Spawn(limitCtx(t), piclient.SpawnOptions{
		Binary: filepath.Join(binDir, "pi-rpc"), Args: args, Dir: dir,
		Env: append(os.Environ(), "PI_RPC_HOME="+home), Stderr: os.Stderr, Options: opts,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c, dir
}

// saveNote initializes c, checks the approval mode the server then reports, and runs
// writeScript's prompt (its write of note.txt) until it settles.
func saveNote(ctx context.Context, t *testing.T, c *piclient.Client, approval string) {
	t.Helper()
	if _, err := c.Initialize(ctx, protocol.InitializeParams{ProtocolVersion: protocol.ProtocolVersion}); err != nil {
		t.Fatal(err)
	}
	state := must[*protocol.StateResult](t, "GetState")(c.GetState(ctx))
	if state.Options.Approval != approval {
		t.Errorf("approval mode after initialize = %q, want %s", state.Options.Approval, approval)
	}
	in := must[*protocol.InputResult](t, "Prompt")(c.Prompt(ctx, protocol.PromptParams{Message: "save a note"}))
	must[*sessionapi.Settled](t, "WaitSettled")(c.WaitSettled(ctx, in.InputID))
}

// TestPermissionHandlerIsAsked: with OnPermission set, Initialize declares the permissions
// capability, so the server asks the handler before the write, both when the mode follows
// the capability (no --approval: ask, not auto) and when --approval ask fixes it (the
// handler answers, instead of every write being refused as "client cannot answer").
func TestPermissionHandlerIsAsked(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"default mode", nil},
		{"approval ask", []string{"--approval", "ask"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := limitCtx(t)
			var mu sync.Mutex
			var asked []string
			handler := func(_ context.Context, req piclient.PermissionRequest) piclient.PermissionDecision {
				mu.Lock()
				asked = append(asked, req.ToolName)
				mu.Unlock()
				return piclient.PermissionDecision{Decision: piclient.DecisionAllow}
			}
			c, dir := spawnBinary(t, piclient.Options{OnPermission: handler}, tc.flags...)
			saveNote(ctx, t, c, "ask")
			mu.Lock()
			got := slices.Clone(asked)
			mu.Unlock()
			if !slices.Equal(got, []string{"write"}) {
				t.Errorf("handler asked for %q, want once for write", got)
			}
			if data, err := os.ReadFile(filepath.Join(dir, "note.txt")); err != nil || string(data) != "hi\n" {
				t.Errorf("note.txt = %q, %v; want the allowed write's content", data, err)
			}
		})
	}
}

// TestNoHandlerDeclaresNothing: without OnPermission, Initialize leaves the capability off and
// the server runs the write unasked (auto).
func TestNoHandlerDeclaresNothing(t *testing.T) {
	ctx := limitCtx(t)
	c, dir := spawnBinary(t, piclient.Options{})
	saveNote(ctx, t, c, "auto")
	if _, err := os.ReadFile(filepath.Join(dir, "note.txt")); err != nil {
		t.Errorf("the write did not run in auto mode: %v", err)
	}
}

// TestToolEndCarriesDuration: the JSON-RPC tool_execution_end of a tool that ran says how long
// it ran (durationMs), decoded into protocol.ToolExecutionEndEvent, and it is the duration its
// tool-result message records.
func TestToolEndCarriesDuration(t *testing.T) {
	ctx := limitCtx(t)
	c, _ := spawnBinary(t, piclient.Options{})
	if _, err := c.Initialize(ctx, protocol.InitializeParams{ProtocolVersion: protocol.ProtocolVersion}); err != nil {
		t.Fatal(err)
	}
	must[*protocol.InputResult](t, "Prompt")(c.Prompt(ctx, protocol.PromptParams{Message: "save a note"}))
	ev, _ := waitEvent(ctx, t, c, "tool_execution_end")
	var end protocol.ToolExecutionEndEvent
	if err := ev.Decode(&end); err != nil {
		t.Fatal(err)
	}
	if end.ToolName != "write" || end.IsError || end.DurationMs == nil || *end.DurationMs < 0 {
		t.Fatalf("tool_execution_end = %+v (durationMs %v), want write's with its duration", end, end.DurationMs)
	}
	ev, _ = waitEvent(ctx, t, c, "message_end")
	var msgEnd protocol.MessageEndEvent
	if err := ev.Decode(&msgEnd); err != nil {
		t.Fatal(err)
	}
	result, ok := msgEnd.Message.Message.(*core.ToolResultMessage)
	if !ok || result.DurationMs == nil || *result.DurationMs != *end.DurationMs {
		t.Errorf("the tool-result message after tool_execution_end is %#v, want durationMs %d", msgEnd.Message.Message, *end.DurationMs)
	}
	waitEvent(ctx, t, c, "agent_settled")
}
