package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pi16File is a session file as pi 1.6.0 writes it: a leading system message (sections and
// tools), a reply, and a usage entry (cache warming) outside the conversation.
func pi16File(t *testing.T, cwd string) string {
	t.Helper()
	lines := []string{
		`{"type":"session","version":3,"id":"01a23456-0000-7000-8000-000000000001","timestamp":"2026-12-01T00:00:00.000Z","cwd":` + quote(cwd) + `}`,
		`{"type":"model_change","id":"m0000001","parentId":null,"timestamp":"2026-12-01T00:00:00.000Z","provider":"faux","modelId":"faux-1"}`,
		`{"type":"message","id":"s0000001","parentId":"m0000001","timestamp":"2026-12-01T00:00:01.000Z","message":{"role":"system","content":"","sections":{"preamble":"You are a coding assistant.","gone":null},"toolsAdded":[{"name":"read","description":"Read a file","parameters":{"type":"object"}}],"toolsRemoved":[{"name":"grep"}],"timestamp":1}}`,
		`{"type":"message","id":"u0000001","parentId":"s0000001","timestamp":"2026-12-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":2}}`,
		`{"type":"message","id":"a0000001","parentId":"u0000001","timestamp":"2026-12-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Hello."}],"api":"faux","provider":"faux","model":"faux-1","usage":{"input":10,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":11,"cost":{"input":0.5,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"stopReason":"stop","timestamp":3}}`,
		`{"type":"usage","id":"w0000001","parentId":"a0000001","timestamp":"2026-12-01T00:00:04.000Z","kind":"cache_warm","provider":"faux","model":"faux-1","usage":{"input":0,"output":0,"cacheRead":50,"cacheWrite":0,"totalTokens":50,"cost":{"input":0,"output":0,"cacheRead":0.25,"cacheWrite":0,"total":0.25}}}`,
	}
	path := filepath.Join(t.TempDir(), "pi16.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// wantPi16Stats is what pi 1.6.0's getSessionStats answers for pi16File: every message entry
// counts (the system message too), and the usage entry's tokens and cost are in the totals.
func checkPi16Stats(t *testing.T, st map[string]any) {
	t.Helper()
	tokens, _ := st["tokens"].(map[string]any)
	if st["userMessages"] != 1.0 || st["assistantMessages"] != 1.0 || st["totalMessages"] != 3.0 ||
		tokens["input"] != 10.0 || tokens["cacheRead"] != 50.0 || tokens["total"] != 61.0 || st["cost"] != 0.75 {
		t.Errorf("stats = %v, want pi 1.6.0's counts with the usage entry", st)
	}
}

// checkSystemMessage finds pi 1.6.0's system message among messages, as written.
func checkSystemMessage(t *testing.T, what string, messages []any) {
	t.Helper()
	for _, m := range messages {
		msg, _ := m.(map[string]any)
		if msg["role"] != "system" {
			continue
		}
		sections, _ := msg["sections"].(map[string]any)
		added, _ := msg["toolsAdded"].([]any)
		removed, _ := msg["toolsRemoved"].([]any)
		if v, ok := sections["gone"]; !ok || v != nil || sections["preamble"] != "You are a coding assistant." || len(added) != 1 || len(removed) != 1 {
			t.Errorf("%s: system message = %v", what, msg)
		}
		return
	}
	t.Errorf("%s: no system message in %v", what, messages)
}

// TestPi16SessionFileOverJSONRPC: a pi 1.6.0 session file opened with --session shows its
// system message through getMessages and getEntries, and getSessionStats counts its usage
// entry as pi 1.6.0 does.
func TestPi16SessionFileOverJSONRPC(t *testing.T) {
	cwd := t.TempDir()
	p := start(t, options{faux: docsScript, cwd: cwd, args: []string{"--session", pi16File(t, cwd)}})
	var msgs struct {
		Messages []any `json:"messages"`
	}
	p.result("getMessages", nil, &msgs)
	checkSystemMessage(t, "getMessages", msgs.Messages)
	var entries struct {
		Entries []map[string]any `json:"entries"`
	}
	p.result("getEntries", nil, &entries)
	var inEntries []any
	for _, e := range entries.Entries {
		if e["type"] == "message" {
			inEntries = append(inEntries, e["message"])
		}
	}
	checkSystemMessage(t, "getEntries", inEntries)
	var st map[string]any
	p.result("getSessionStats", nil, &st)
	checkPi16Stats(t, st)
}

// TestPi16SessionFileStatsInPiMode: pi mode's get_session_stats counts a usage entry as pi
// 1.6.0 does, and get_messages returns the system message.
func TestPi16SessionFileStatsInPiMode(t *testing.T) {
	cwd := t.TempDir()
	p := startPi(t, piOptions{faux: docsScript, cwd: cwd, args: []string{"--session", pi16File(t, cwd)}})
	checkPi16Stats(t, p.call("1", "get_session_stats", nil).data())
	msgs, _ := p.call("2", "get_messages", nil).data()["messages"].([]any)
	checkSystemMessage(t, "get_messages", msgs)
}
