package rpc_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/rpc"
)

// checkStream checks rules 2 and 3 over everything read: seq gap-free from the first event,
// runId on exactly the run's events, agent_settled last in its period.
func checkStream(t *testing.T, msgs []map[string]any) {
	t.Helper()
	var seq float64
	inRun := false
	for _, m := range msgs {
		if m["method"] != "event" {
			continue
		}
		ev := m["params"].(map[string]any)
		if seq != 0 && ev["seq"] != seq+1 {
			t.Fatalf("seq %v after %v", ev["seq"], seq)
		}
		seq = ev["seq"].(float64)
		switch ev["type"] {
		case "agent_start":
			inRun = true
		case "agent_end":
			inRun = false
		case "agent_settled":
			if ev["lastSeq"] != ev["seq"] {
				t.Fatalf("agent_settled lastSeq %v != seq %v", ev["lastSeq"], ev["seq"])
			}
		}
		_, hasRun := ev["runId"]
		if hasRun != (inRun || ev["type"] == "agent_end") {
			t.Fatalf("%v at seq %v: runId %v, in run %v", ev["type"], seq, hasRun, inRun)
		}
	}
}

// Rule 1: a prompt's response comes before any event it causes.
func TestPromptResponseBeforeEvents(t *testing.T) {
	p := newPeer(t, peerOpts{}, faux.Reply(faux.Text("hello there")))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"prompt","params":{"message":"hi"}}` + "\n")
	first := p.next()
	if first["id"] != float64(1) || first["result"].(map[string]any)["inputId"] != "in1" {
		t.Fatalf("first message %s, want the prompt's response", first["raw"])
	}
	msgs := p.untilEvent("agent_settled")
	checkStream(t, msgs)
	if eventType(msgs[0]) != "agent_start" {
		t.Fatalf("first event %s", msgs[0]["raw"])
	}
	settled := msgs[len(msgs)-1]["params"].(map[string]any)
	if settled["sessionId"] != "session-1" || settled["aborted"] != false {
		t.Fatalf("agent_settled = %s", msgs[len(msgs)-1]["raw"])
	}
	st := p.call("getState", nil)["result"].(map[string]any)
	if st["settled"] != true || st["lastSeq"] != settled["seq"] {
		t.Fatalf("getState after settle = %v", st)
	}
}

// Rule 1 for steer and followUp while busy, and for abort: the response precedes the
// queue_update or agent_end they cause.
func TestQueueAndAbortResponsesBeforeTheirEvents(t *testing.T) {
	release := make(chan struct{})
	step := faux.HeldAt(faux.Reply(faux.Text("a long answer")), 1, release)
	p := newPeer(t, peerOpts{}, step, faux.Reply(faux.Text("never")))
	p.call("prompt", map[string]any{"message": "hi"})
	p.untilEvent("message_update")
	for i, method := range []string{"steer", "followUp"} {
		id := float64(5 + i)
		p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(5+i) + `,"method":"` + method + `","params":{"message":"more"}}` + "\n")
		for {
			m := p.next()
			if eventType(m) == "queue_update" {
				t.Fatalf("%s: queue_update %s came before the response", method, m["raw"])
			}
			if m["id"] == id {
				if m["result"].(map[string]any)["disposition"] != "queued" {
					t.Fatalf("%s: response %s, want queued", method, m["raw"])
				}
				break
			}
		}
		// The next message but for the first chunk's updates (they may still be on their way:
		// the step holds back only the second chunk).
		ev := p.next()
		for eventType(ev) == "message_update" {
			ev = p.next()
		}
		if eventType(ev) != "queue_update" {
			t.Fatalf("%s: next message %s, want queue_update", method, ev["raw"])
		}
	}
	p.send(`{"jsonrpc":"2.0","id":9,"method":"abort"}` + "\n")
	resp := p.next()
	if resp["id"] != float64(9) || resp["result"].(map[string]any)["aborted"] != true {
		t.Fatalf("first message after abort %s, want its response", resp["raw"])
	}
	msgs := p.untilEvent("agent_settled")
	var types []string
	for _, m := range msgs {
		if typ := eventType(m); typ != "" && typ != "message_update" {
			types = append(types, typ)
		}
	}
	tail := strings.Join(types[len(types)-4:], ",")
	if tail != "turn_end,agent_end,queue_update,agent_settled" {
		t.Fatalf("events after abort end with %s", tail)
	}
	settled := msgs[len(msgs)-1]["params"].(map[string]any)
	if settled["aborted"] != true || len(settled["inputs"].([]any)) != 3 {
		t.Fatalf("agent_settled = %s", msgs[len(msgs)-1]["raw"])
	}
	close(release)
}

// waitSettled answers after the agent_settled it returns; by input id it races a new prompt.
func TestWaitSettledAnswersAfterSettled(t *testing.T) {
	p := newPeer(t, peerOpts{}, faux.Reply(faux.Text("one")), faux.Reply(faux.Text("two")))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"prompt","params":{"message":"hi"}}` + "\n")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"waitSettled","params":{"inputId":"in1"}}` + "\n")
	sawSettled := false
	for {
		m := p.next()
		if eventType(m) == "agent_settled" {
			sawSettled = true
		}
		if m["id"] == float64(2) {
			if !sawSettled {
				t.Fatalf("waitSettled answered before agent_settled: %s", m["raw"])
			}
			if m["result"].(map[string]any)["inputs"].([]any)[0].(map[string]any)["inputId"] != "in1" {
				t.Fatalf("waitSettled = %s", m["raw"])
			}
			break
		}
	}
	p.call("prompt", map[string]any{"message": "again"})
	resp := p.call("waitSettled", map[string]any{"inputId": "in1"})
	if resp["result"].(map[string]any)["inputs"].([]any)[0].(map[string]any)["inputId"] != "in1" {
		t.Fatalf("waitSettled for a settled input = %s", resp["raw"])
	}
}

func TestWaitSettledTimeoutAndCancel(t *testing.T) {
	step := faux.Reply(faux.Text("x"))
	step.Hang = true
	p := newPeer(t, peerOpts{}, step)
	p.call("prompt", map[string]any{"message": "hi"})
	resp := p.call("waitSettled", map[string]any{"timeoutMs": 1})
	e := resp["error"].(map[string]any)
	data := e["data"].(map[string]any)
	if e["code"] != float64(-32015) || data["kind"] != "timeout" || data["busy"] != true {
		t.Fatalf("timeout answer %s", resp["raw"])
	}
	p.send(`{"jsonrpc":"2.0","id":"c","method":"waitSettled"}` + "\n")
	p.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"c"}}` + "\n")
	resp = p.nextResponse()
	if resp["id"] != "c" || resp["error"].(map[string]any)["code"] != float64(-32800) {
		t.Fatalf("cancelled waitSettled answered %s", resp["raw"])
	}
	p.call("abort", nil)
}

func TestAbortIdle(t *testing.T) {
	p := newPeer(t, peerOpts{})
	resp := p.call("abort", nil)
	if resp["result"].(map[string]any)["aborted"] != false {
		t.Fatalf("abort when idle = %s", resp["raw"])
	}
	resp = p.call("getState", nil)
	if resp["result"].(map[string]any)["lastSeq"] != float64(0) {
		t.Fatalf("an idle abort wrote events: %s", resp["raw"])
	}
}

func TestMethodErrors(t *testing.T) {
	step := faux.Reply(faux.Text("hi"))
	step.Hang = true
	p := newPeer(t, peerOpts{}, step)
	cases := []struct {
		method string
		params any
		code   float64
		kind   string
	}{
		{"continue", nil, -32011, "invalidState"},
		{"cancelInput", map[string]any{"inputId": "in9"}, -32012, "notFound"},
		{"waitSettled", map[string]any{"inputId": "in9"}, -32012, "notFound"},
		{"setThinkingLevel", map[string]any{"level": "huge"}, -32602, ""},
		{"setOptions", map[string]any{"steeringMode": "sometimes"}, -32602, ""},
		{"setModel", map[string]any{"modelId": "nope"}, -32013, "providerNotConfigured"},
	}
	for _, tc := range cases {
		resp := p.call(tc.method, tc.params)
		e, ok := resp["error"].(map[string]any)
		if !ok || e["code"] != tc.code {
			t.Fatalf("%s: %s, want code %v", tc.method, resp["raw"], tc.code)
		}
		if tc.kind != "" && e["data"].(map[string]any)["kind"] != tc.kind {
			t.Fatalf("%s: kind %v, want %s", tc.method, e["data"], tc.kind)
		}
	}
	p.call("prompt", map[string]any{"message": "hi"})
	resp := p.call("prompt", map[string]any{"message": "again"})
	e := resp["error"].(map[string]any)
	if e["code"] != float64(-32010) || e["data"].(map[string]any)["kind"] != "busy" {
		t.Fatalf("prompt while busy = %s", resp["raw"])
	}
	p.call("abort", nil)
}

func TestLSPFraming(t *testing.T) {
	for _, framing := range []string{"auto", "lsp"} {
		t.Run(framing, func(t *testing.T) {
			p := newPeer(t, peerOpts{framing: rpc.Framing(framing), readLSP: true}, faux.Reply(faux.Text("hi")))
			body := `{"jsonrpc":"2.0","id":1,"method":"prompt","params":{"message":"hi"}}`
			// A BOM, lower-case header name, Content-Type ignored, bare \n tolerated.
			p.send("\xEF\xBB\xBF  content-length: " + strconv.Itoa(len(body)) + "\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\r\n" + body)
			if resp := p.next(); resp["id"] != float64(1) {
				t.Fatalf("first message %s", resp["raw"])
			}
			p.untilEvent("agent_settled")
			p.send("Content-Type: x\r\n\r\n{}")
			if resp := p.nextResponse(); !strings.Contains(resp["raw"].(string), "missing Content-Length") {
				t.Fatalf("header block without Content-Length answered %s", resp["raw"])
			}
			body = `{"jsonrpc":"2.0","id":2,"method":"getState"}`
			p.send("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
			if resp := p.nextResponse(); resp["id"] != float64(2) {
				t.Fatalf("after resync: %s", resp["raw"])
			}
		})
	}
}
