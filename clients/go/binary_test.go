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
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/protocol"
)

// The tests in this file, and the package's examples, spawn the real pi-rpc binary, built
// once by TestMain into a temporary directory that is put first on PATH: the examples start
// "pi-rpc" as a user's program does.

// binDir holds the pi-rpc built by TestMain ("" in a helper process, which builds nothing).
var binDir string

func TestMain(m *testing.M) {
	// TestHelperProcess re-executes this test binary as a fake server; it needs no pi-rpc.
	if os.Getenv("PICLIENT_HELPER") != "" {
		os.Exit(m.Run())
	}
	dir, err := buildPiRPC()
	if err != nil {
		fmt.Fprintln(os.Stderr, "clients/go:", err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// buildPiRPC builds cmd/pi-rpc into a new temporary directory and puts it first on PATH.
func buildPiRPC() (string, error) {
	dir, err := os.MkdirTemp("", "piclient-test-bin-")
	if err != nil {
		return "", err
	}
	if err := testkit.ReadModuleSources("../.."); err != nil {
		return "", err
	}
	bin, err := testkit.BuildCommand(dir, "../../cmd/pi-rpc", "pi-rpc")
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return dir, os.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
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
			if _, err := c.Initialize(ctx, protocol.InitializeParams{ProtocolVersion: protocol.ProtocolVersion}); err != nil {
				t.Fatal(err)
			}
			state := must[*protocol.StateResult](t, "GetState")(c.GetState(ctx))
			if state.Options.Approval != "ask" {
				t.Errorf("approval mode after initialize = %q, want ask", state.Options.Approval)
			}
			in := must[*protocol.InputResult](t, "Prompt")(c.Prompt(ctx, protocol.PromptParams{Message: "save a note"}))
			must[*protocol.Settled](t, "WaitSettled")(c.WaitSettled(ctx, in.InputID))
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
	if _, err := c.Initialize(ctx, protocol.InitializeParams{ProtocolVersion: protocol.ProtocolVersion}); err != nil {
		t.Fatal(err)
	}
	state := must[*protocol.StateResult](t, "GetState")(c.GetState(ctx))
	if state.Options.Approval != "auto" {
		t.Errorf("approval mode after initialize = %q, want auto", state.Options.Approval)
	}
	in := must[*protocol.InputResult](t, "Prompt")(c.Prompt(ctx, protocol.PromptParams{Message: "save a note"}))
	must[*protocol.Settled](t, "WaitSettled")(c.WaitSettled(ctx, in.InputID))
	if _, err := os.ReadFile(filepath.Join(dir, "note.txt")); err != nil {
		t.Errorf("the write did not run in auto mode: %v", err)
	}
}
