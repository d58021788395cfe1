package rpc_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/rpc"
	"github.com/pi-rpc/pi-rpc/tools"
)

// takeLog returns the server's log lines written since the last call.
func takeLog(t *testing.T, log *testkit.Buffer) []map[string]any {
	t.Helper()
	return testkit.JSONLines(t, log.Take())
}

// Answers from the client that are malformed or match no request of ours are never
// answered: each is logged at warn and dropped, and a pending permission/request is
// unaffected (its proper answer still decides it).
func TestMalformedResponsesIgnoredAndLogged(t *testing.T) {
	var log testkit.Buffer
	dir := t.TempDir()
	ts, err := tools.New([]string{"write"}, tools.Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	p := newPeer(t, peerOpts{log: &log, tools: ts, cwd: dir}, faux.Reply(write("w1", "a.txt", "hello")), faux.Reply(faux.Text("done")))
	p.initPermissions()
	p.call("prompt", map[string]any{"message": "write it"})
	req, _ := p.untilRequest()
	id, _ := json.Marshal(req["id"])
	pid := string(id)
	tests := []struct {
		name, msg, reason string
	}{
		{"neither result nor error", `{"jsonrpc":"2.0","id":` + pid + `}`, "neither result nor error"},
		{"both result and error", `{"jsonrpc":"2.0","id":` + pid + `,"result":{"decision":"allow"},"error":{"code":1,"message":"m"}}`, "both result and error"},
		{"error not an object", `{"jsonrpc":"2.0","id":` + pid + `,"error":"boom"}`, "error must be an object"},
		{"error null alone", `{"jsonrpc":"2.0","id":` + pid + `,"error":null}`, "neither result nor error"},
		{"jsonrpc missing", `{"id":` + pid + `,"result":{"decision":"allow"}}`, `"jsonrpc" must be "2.0"`},
		{"jsonrpc wrong", `{"jsonrpc":"1.0","id":` + pid + `,"result":{"decision":"allow"}}`, `"jsonrpc" must be "2.0"`},
		{"id object", `{"jsonrpc":"2.0","id":{"a":1},"result":{"decision":"allow"}}`, "id must be a string"},
		{"id array", `{"jsonrpc":"2.0","id":[` + pid + `],"result":{"decision":"allow"}}`, "id must be a string"},
		{"id boolean", `{"jsonrpc":"2.0","id":true,"error":{"code":1,"message":"m"}}`, "id must be a string"},
		{"id null", `{"jsonrpc":"2.0","id":null,"result":{}}`, "id must be a string"},
		{"id missing", `{"jsonrpc":"2.0","result":{}}`, "id must be a string"},
		{"id a number", `{"jsonrpc":"2.0","id":7,"result":{}}`, "id must be a string"},
		{"unknown id", `{"jsonrpc":"2.0","id":"nobody","result":{"decision":"allow"}}`, ""},
		{"in a batch", `[{"jsonrpc":"2.0","id":{},"result":{}}]`, "id must be a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			takeLog(t, &log)
			p.send(tc.msg + "\n")
			// No reply: the next response is getState's.
			if resp := p.call("getState", nil); resp["result"] == nil {
				t.Fatalf("getState after %s = %s", tc.msg, resp["raw"])
			}
			var warned []string
			for _, l := range takeLog(t, &log) {
				if l["level"] == "warn" && strings.HasPrefix(fmt.Sprint(l["message"]), "ignoring a") {
					warned = append(warned, fmt.Sprintf("%v (%v)", l["message"], l["reason"]))
				}
			}
			if len(warned) != 1 || !strings.Contains(warned[0], tc.reason) {
				t.Fatalf("log for %s: %q, want one warning with %q", tc.msg, warned, tc.reason)
			}
			st := p.call("getState", nil)["result"].(map[string]any)
			if n := len(st["busy"].(map[string]any)["permissionsPending"].([]any)); n != 1 {
				t.Fatalf("permissions pending after %s: %d, want 1", tc.msg, n)
			}
		})
	}
	p.t = t
	p.answer(req, map[string]any{"decision": "allow"})
	msgs := p.untilEvent("agent_settled")
	if r := resolved(msgs); len(r) != 1 || r[0]["decision"] != "allow" || r[0]["by"] != "client" {
		t.Fatalf("permission_resolved after the malformed answers = %v", r)
	}
	// Answered now: the same answer again matches nothing, and is dropped.
	takeLog(t, &log)
	p.answer(req, map[string]any{"decision": "deny"})
	p.call("getState", nil)
	if l := takeLog(t, &log); len(l) == 0 || !strings.Contains(fmt.Sprint(l), "matches no request") {
		t.Fatalf("log after a second answer: %v", l)
	}
}

// Without a pending request of ours, a message with an id and no method, result or error is
// a request without a method: -32600 with its id.
func TestIDWithoutMethodIsARequest(t *testing.T) {
	p := newPeer(t, peerOpts{})
	p.send(`{"jsonrpc":"2.0","id":"perm-1"}` + "\n")
	resp := p.nextResponse()
	if !strings.Contains(resp["raw"].(string), `"id":"perm-1","error":{"code":-32600,"message":"Invalid request: \"method\" must be a string"}`) {
		t.Fatalf("answer = %s", resp["raw"])
	}
}

// Ids are echoed byte for byte, except U+2028 and U+2029, which are written escaped in
// every answer: a result, an error from a handler, and an error from the stream.
func TestIDLineSeparatorsEscaped(t *testing.T) {
	for _, framing := range []rpc.Framing{rpc.FramingNDJSON, rpc.FramingLSP} {
		t.Run(string(framing), func(t *testing.T) {
			p := newPeer(t, peerOpts{framing: framing})
			frame := func(s string) string {
				if framing == rpc.FramingLSP {
					return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(s), s)
				}
				return s + "\n"
			}
			rawID := "\"a\u2028b\u2029c\\u2028\\\\\u2028\""
			wantID := `"a\u2028b\u2029c\u2028\\\u2028"`
			for _, tc := range []struct{ name, msg, want string }{
				{"result", `{"jsonrpc":"2.0","id":` + rawID + `,"method":"getState"}`, `"result":`},
				{"handler error", `{"jsonrpc":"2.0","id":` + rawID + `,"method":"fly"}`, `"code":-32601`},
				{"stream error", `{"jsonrpc":"1.0","id":` + rawID + `,"method":"getState"}`, `"code":-32600`},
				{"again, once answered", `{"jsonrpc":"2.0","id":` + rawID + `,"method":"getState"}`, `"result":`},
			} {
				p.send(frame(tc.msg))
				raw := p.nextResponse()["raw"].(string)
				if strings.ContainsAny(raw, "\u2028\u2029") {
					t.Fatalf("%s: raw line separator in %q", tc.name, raw)
				}
				if !strings.HasPrefix(raw, `{"jsonrpc":"2.0","id":`+wantID+`,`) || !strings.Contains(raw, tc.want) {
					t.Fatalf("%s: answer %s, want id %s and %s", tc.name, raw, wantID, tc.want)
				}
				var m struct{ ID string }
				if err := json.Unmarshal([]byte(raw), &m); err != nil || m.ID != "a\u2028b\u2029c\u2028\\\u2028" {
					t.Fatalf("%s: id reads back as %q, %v", tc.name, m.ID, err)
				}
			}
		})
	}
}

// LSP: a Content-Length longer than the body the client meant is answered with one parse
// error once the declared bytes have arrived; the requests swallowed into it are answered
// after it, in order.
func TestLSPLengthLongerThanBody(t *testing.T) {
	p := newPeer(t, peerOpts{framing: rpc.FramingLSP})
	frame := func(s string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(s), s) }
	a := `{"jsonrpc":"2.0","id":1,"method":"getState"}`
	b := frame(`{"jsonrpc":"2.0","id":2,"method":"getState"}`)
	c := frame(`{"jsonrpc":"2.0","id":3,"method":"getState"}`)
	p.send(fmt.Sprintf("Content-Length: %d\r\n\r\n%s%s%s", len(a)+len(b)+10, a, b, c))
	first := p.nextResponse()
	if !strings.HasPrefix(first["raw"].(string), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: `) {
		t.Fatalf("first answer = %s, want -32700", first["raw"])
	}
	for _, id := range []float64{2, 3} {
		if r := p.nextResponse(); r["id"] != id || r["result"] == nil {
			t.Fatalf("answer = %s, want getState's for id %v", r["raw"], id)
		}
	}
	// A length over the limit is answered at once and its bytes skipped.
	p2 := newPeer(t, peerOpts{framing: rpc.FramingLSP, max: 4096})
	p2.send("Content-Length: 5000\r\n\r\n")
	if r := p2.nextResponse(); !strings.Contains(r["raw"].(string), `"id":null,"error":{"code":-32600,"message":"message too large"}`) {
		t.Fatalf("answer to a length over the limit = %s", r["raw"])
	}
	p2.send(strings.Repeat("x", 5000) + frame(`{"jsonrpc":"2.0","id":4,"method":"getState"}`))
	if r := p2.nextResponse(); r["id"] != float64(4) || r["result"] == nil {
		t.Fatalf("answer after the skipped body = %s", r["raw"])
	}
}
