package rpc_test

import (
	"context"
	"sync"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/protocol"
)

// approvalTool is a tool that says whether it needs approval, as MCP tools do.
type approvalTool struct {
	core.FuncTool
	needs  bool
	server string
}

func (t *approvalTool) NeedsApproval() bool { return t.needs }
func (t *approvalTool) Server() string      { return t.server }

func newApprovalTool(name string, needs bool) *approvalTool {
	return &approvalTool{needs: needs, server: "srv", FuncTool: core.FuncTool{
		ToolInfo: core.ToolInfo{Name: name, Description: "a tool of srv", Parameters: []byte(`{"type":"object"}`)},
		Run: func(context.Context, core.ToolCall, func(core.ToolResult)) (core.ToolResult, error) {
			return core.TextResult("ran " + name), nil
		},
	}}
}

// fakeMCP records Add and reports one failed server.
type fakeMCP struct {
	mu    sync.Mutex
	added map[string]protocol.MCPServerConfig
}

func (f *fakeMCP) Add(servers map[string]protocol.MCPServerConfig) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.added = servers
}

func (f *fakeMCP) Servers() []protocol.MCPServerStatus {
	return []protocol.MCPServerStatus{{Name: "broken", Transport: "stdio", State: "failed", Error: "cannot start", Tools: []protocol.MCPToolStatus{}}}
}

func (f *fakeMCP) Problems() []protocol.Problem {
	return []protocol.Problem{{Kind: "mcpServer", Server: "broken", Message: "MCP server broken failed: cannot start"}}
}

func TestApprovalFollowsNeedsApproval(t *testing.T) {
	ro, rw := newApprovalTool("mcp__srv__look", false), newApprovalTool("mcp__srv__change", true)
	p := newPeer(t, peerOpts{tools: []core.Tool{ro, rw}},
		faux.Reply(faux.ToolCallWithID("c1", "mcp__srv__look", map[string]any{}), faux.ToolCallWithID("c2", "mcp__srv__change", map[string]any{})),
		faux.Reply(faux.Text("done")))
	p.initPermissions()
	p.call("prompt", map[string]any{"message": "go"})
	req, _ := p.untilRequest()
	if params := req["params"].(map[string]any); params["toolName"] != "mcp__srv__change" || params["toolCallId"] != "c2" {
		t.Fatalf("asked for %v, want only mcp__srv__change", params)
	}
	p.answer(req, map[string]any{"decision": "allow"})
	msgs := p.untilEvent("agent_settled")
	for _, m := range msgs {
		if m["method"] == "permission/request" {
			t.Fatalf("a second request: %v", m)
		}
	}
	if ends := toolEnds(msgs); ends["c1"] != "ran mcp__srv__look" || ends["c2"] != "ran mcp__srv__change" {
		t.Fatalf("results %v", ends)
	}
}

func TestInitializeMCPServersAndListTools(t *testing.T) {
	host := &fakeMCP{}
	p := newPeer(t, peerOpts{mcp: host, tools: []core.Tool{newApprovalTool("mcp__srv__look", false)}})
	res := p.call("initialize", map[string]any{"mcpServers": map[string]any{
		"fs": map[string]any{"command": "npx", "args": []string{"-y", "server"}, "env": map[string]string{"A": "${B}"}},
		"gh": map[string]any{"type": "http", "url": "https://h/mcp"},
	}})["result"].(map[string]any)
	host.mu.Lock()
	added := host.added
	host.mu.Unlock()
	if len(added) != 2 || added["fs"].Command != "npx" || added["fs"].Env["A"] != "${B}" || added["gh"].URL != "https://h/mcp" {
		t.Fatalf("added %+v", added)
	}
	if probs := res["problems"].([]any); len(probs) != 1 || probs[0].(map[string]any)["server"] != "broken" {
		t.Fatalf("initialize problems %v", probs)
	}
	st := p.call("getState", nil)["result"].(map[string]any)
	if probs := st["problems"].([]any); len(probs) != 1 || probs[0].(map[string]any)["kind"] != "mcpServer" {
		t.Fatalf("getState problems %v", probs)
	}
	lt := p.call("listTools", nil)["result"].(map[string]any)
	tools := lt["tools"].([]any)
	if len(tools) != 1 {
		t.Fatalf("tools %v", tools)
	}
	if tool := tools[0].(map[string]any); tool["name"] != "mcp__srv__look" || tool["source"] != "mcp" || tool["server"] != "srv" || tool["needsApproval"] != false {
		t.Fatalf("tool %v", tool)
	}
	if servers := lt["mcpServers"].([]any); len(servers) != 1 || servers[0].(map[string]any)["state"] != "failed" {
		t.Fatalf("servers %v", servers)
	}
}

func TestInitializeRejectsBadMCPServers(t *testing.T) {
	p := newPeer(t, peerOpts{mcp: &fakeMCP{}})
	m := p.call("initialize", map[string]any{"mcpServers": []any{"x"}})
	if m["error"] == nil || m["error"].(map[string]any)["code"] != float64(protocol.CodeInvalidParams) {
		t.Fatalf("initialize with a bad mcpServers = %v", m)
	}
}
