package e2e_test

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// goClient is the client side of the Go SDK: it records updates and allows every tool.
type goClient struct {
	sdk.Client // the methods this agent never calls (fs, terminal) stay unimplemented
	mu         sync.Mutex
	updates    []sdk.SessionNotification
}

func (c *goClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n)
	return nil
}

func (c *goClient) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected("allow_once")}, nil
}

func (c *goClient) take() []sdk.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.updates
	c.updates = nil
	return out
}

func dialGo(t *testing.T, mock *mockopenai.Server, home string) (*sdk.ClientSideConnection, *goClient, func()) {
	t.Helper()
	c := &goClient{}
	conn, stop := spawnACP(t, mock, home, c)
	return conn, c, stop
}

// spawnACP starts pi-rpc --protocol acp against mock with home as its HOME, and connects the
// Go SDK's client side c to it; stop closes its input and waits for it to exit.
func spawnACP(t *testing.T, mock *mockopenai.Server, home string, c sdk.Client, args ...string) (*sdk.ClientSideConnection, func()) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--protocol", "acp", "--provider", "openai", "--base-url", mock.URL(), "--model", "gpt-4.1"}, args...)...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "PI_RPC_HOME=" + home, "OPENAI_API_KEY=test"}
	in, out := stdioPipes(t, cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	conn := sdk.NewClientSideConnection(c, in, out)
	return conn, func() {
		_ = in.Close()
		_ = cmd.Wait()
	}
}

// promptToEnd sends one text prompt and fails the test unless the turn ends end_turn.
func promptToEnd(t *testing.T, conn *sdk.ClientSideConnection, sid sdk.SessionId, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt %q: %+v, %v", text, res, err)
	}
}

// The Go SDK's client side: a turn with an update_plan call sends the plan, and a second
// process loads the saved session, replaying it before the load is answered.
func TestACPGoSDKPlanAndLoad(t *testing.T) {
	plan := `{"entries":[{"content":"read the code","priority":"high","status":"completed"},{"content":"fix the bug","priority":"medium","status":"in_progress"}]}`
	mock := mockOf(
		mockopenai.Response{Text: "Planning.", ToolCalls: []mockopenai.ToolCall{{ID: "call_plan", Name: "update_plan", Arguments: plan}}},
		mockopenai.Response{Text: "Plan made."},
	)
	defer mock.Close()
	home, ws := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	conn, client, stop := dialGo(t, mock, home)
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("make a plan")}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", res, err)
	}
	var got *sdk.SessionUpdatePlan
	var kind sdk.ToolKind
	for _, n := range client.take() {
		if n.Update.Plan != nil {
			got = n.Update.Plan
		}
		if n.Update.ToolCall != nil {
			kind = n.Update.ToolCall.Kind
		}
	}
	if got == nil || len(got.Entries) != 2 || got.Entries[1].Content != "fix the bug" || got.Entries[1].Status != sdk.PlanEntryStatusInProgress || kind != sdk.ToolKindThink {
		t.Fatalf("plan update %+v, tool kind %q", got, kind)
	}
	stop()

	conn, client, stop = dialGo(t, mock, home)
	defer stop()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	list, err := conn.ListSessions(ctx, sdk.ListSessionsRequest{Cwd: &ws})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != sess.SessionId {
		t.Fatalf("list: %+v, %v", list, err)
	}
	if _, err := conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var user, agent strings.Builder
	for _, n := range client.take() {
		u := n.Update
		switch {
		case u.UserMessageChunk != nil:
			kinds = append(kinds, "user")
			user.WriteString(u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			agent.WriteString(u.AgentMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			kinds = append(kinds, "tool_call:"+string(u.ToolCall.ToolCallId))
		case u.ToolCallUpdate != nil:
			kinds = append(kinds, "tool_call_update:"+string(*u.ToolCallUpdate.Status))
		}
	}
	if user.String() != "make a plan" || agent.String() != "Planning.Plan made." ||
		strings.Join(kinds, ",") != "user,tool_call:call_plan,tool_call_update:completed" {
		t.Fatalf("replay: user %q agent %q kinds %v", user.String(), agent.String(), kinds)
	}
}
