package rpc_test

import (
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/rpc"
)

// TestBadInput walks the table of docs/protocol.md#bad-input: each input gets its answer and
// the server keeps serving.
func TestBadInput(t *testing.T) {
	p := newPeer(t, peerOpts{max: 4096})
	tests := []struct {
		name  string
		input string
		// want is the expected response: code and id as JSON ("null" for id null); empty
		// code means no reply.
		code    int
		id      string
		message string
	}{
		{"not JSON", "{oops\n", protocol.CodeParseError, "null", "Parse error"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"getState\",\"x\":\"\xff\"}\n", protocol.CodeParseError, "null", "invalid UTF-8"},
		{"empty line", "\n", protocol.CodeParseError, "null", "Parse error"},
		{"a number", "42\n", protocol.CodeInvalidRequest, "null", ""},
		{"a string", "\"hi\"\n", protocol.CodeInvalidRequest, "null", ""},
		{"empty batch", "[]\n", protocol.CodeInvalidRequest, "null", ""},
		{"jsonrpc absent", `{"id":7,"method":"getState"}` + "\n", protocol.CodeInvalidRequest, "7", `"jsonrpc" must be "2.0"`},
		{"jsonrpc wrong", `{"jsonrpc":"1.0","id":"x","method":"getState"}` + "\n", protocol.CodeInvalidRequest, `"x"`, ""},
		{"jsonrpc wrong, id invalid", `{"jsonrpc":"1.0","id":{},"method":"getState"}` + "\n", protocol.CodeInvalidRequest, "null", ""},
		{"id object", `{"jsonrpc":"2.0","id":{"a":1},"method":"getState"}` + "\n", protocol.CodeInvalidRequest, "null", "id must be"},
		{"id array", `{"jsonrpc":"2.0","id":[1],"method":"getState"}` + "\n", protocol.CodeInvalidRequest, "null", ""},
		{"id boolean", `{"jsonrpc":"2.0","id":true,"method":"getState"}` + "\n", protocol.CodeInvalidRequest, "null", ""},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"getState"}` + "\n", protocol.CodeInvalidRequest, "null", ""},
		{"method missing", `{"jsonrpc":"2.0","id":3}` + "\n", protocol.CodeInvalidRequest, "3", `"method" must be a string`},
		{"method not a string", `{"jsonrpc":"2.0","id":3,"method":5}` + "\n", protocol.CodeInvalidRequest, "3", ""},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"fly"}` + "\n", protocol.CodeMethodNotFound, "4", "Method not found: fly"},
		{"params not an object", `{"jsonrpc":"2.0","id":5,"method":"getState","params":[1]}` + "\n", protocol.CodeInvalidParams, "5", ""},
		{"wrong field type", `{"jsonrpc":"2.0","id":6,"method":"prompt","params":{"message":5}}` + "\n", protocol.CodeInvalidParams, "6", "params.message: expected string, got number"},
		{"missing field", `{"jsonrpc":"2.0","id":8,"method":"prompt","params":{}}` + "\n", protocol.CodeInvalidParams, "8", "params.message: required"},
		{"exit with an id", `{"jsonrpc":"2.0","id":9,"method":"exit"}` + "\n", protocol.CodeInvalidRequest, "9", "exit is a notification"},
		{"$/ request", `{"jsonrpc":"2.0","id":10,"method":"$/progress"}` + "\n", protocol.CodeMethodNotFound, "10", ""},
		{"too large", `{"jsonrpc":"2.0","id":11,"method":"prompt","params":{"message":"` + strings.Repeat("x", 5000) + `"}}` + "\n", protocol.CodeInvalidRequest, "null", "message too large"},
		{"negative id", `{"jsonrpc":"2.0","id":-12,"method":"fly"}` + "\n", protocol.CodeMethodNotFound, "-12", ""},
		{"fractional id", `{"jsonrpc":"2.0","id":1.50,"method":"fly"}` + "\n", protocol.CodeMethodNotFound, "1.50", ""},
		{"huge id", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"fly"}` + "\n", protocol.CodeMethodNotFound, "123456789012345678901234567890", ""},
		{"string id", `{"jsonrpc":"2.0","id":"abc","method":"fly"}` + "\n", protocol.CodeMethodNotFound, `"abc"`, ""},
		{"CRLF line", `{"jsonrpc":"2.0","id":13,"method":"fly"}` + "\r\n", protocol.CodeMethodNotFound, "13", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			p.send(tc.input)
			resp := p.nextResponse()
			raw := resp["raw"].(string)
			if !strings.Contains(raw, `"id":`+tc.id+`,`) {
				t.Fatalf("response %s: id is not %s", raw, tc.id)
			}
			e, ok := resp["error"].(map[string]any)
			if !ok || int(e["code"].(float64)) != tc.code {
				t.Fatalf("response %s: want code %d", raw, tc.code)
			}
			if !strings.Contains(e["message"].(string), tc.message) {
				t.Fatalf("message %q lacks %q", e["message"], tc.message)
			}
			if ok := p.call("getState", nil); ok["result"] == nil {
				t.Fatalf("server stopped serving after %s: %s", tc.name, ok["raw"])
			}
		})
	}
}

// Inputs that get no reply at all: notifications that are unknown, request-only or
// malformed, and responses to nothing.
func TestSilentInputs(t *testing.T) {
	p := newPeer(t, peerOpts{})
	for _, in := range []string{
		`{"jsonrpc":"2.0","method":"fly"}`,
		`{"jsonrpc":"2.0","method":"getState"}`,
		`{"jsonrpc":"2.0","method":"prompt","params":[1]}`,
		`{"jsonrpc":"2.0","id":99,"result":{}}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":12345}}`,
		`[{"jsonrpc":"2.0","method":"fly"},{"jsonrpc":"2.0","method":"getState"}]`,
		// Responses jsonrpc2 could not parse (it would close the connection): dropped.
		`{"jsonrpc":"2.0","id":-1,"result":1}`,
		`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":null}`,
		`{"jsonrpc":"2.0","id":1,"error":"boom"}`,
		`[{"jsonrpc":"2.0","id":-1,"result":1}]`,
	} {
		p.send(in + "\n")
	}
	resp := p.call("getState", nil)
	if resp["result"] == nil {
		t.Fatalf("getState after silent inputs = %s", resp["raw"])
	}
}

func TestDuplicatePendingID(t *testing.T) {
	step := faux.Reply(faux.Text("x"))
	step.Hang = true
	p := newPeer(t, peerOpts{}, step)
	// waitSettled with an unknown-but-valid wait keeps the first request pending.
	p.send(`{"jsonrpc":"2.0","id":"w","method":"waitSettled","params":{"inputId":"in1"}}` + "\n")
	first := p.nextResponse()
	if first["error"] == nil {
		t.Fatalf("waitSettled for an unknown input = %s, want notFound", first["raw"])
	}
	p.send(`{"jsonrpc":"2.0","id":"p","method":"prompt","params":{"message":"hi"}}` + "\n")
	_ = p.nextResponse()
	p.send(`{"jsonrpc":"2.0","id":"w","method":"waitSettled","params":{"inputId":"in1","timeoutMs":60000}}` + "\n")
	p.send(`{"jsonrpc":"2.0","id":"w","method":"getState"}` + "\n")
	resp := p.nextResponse()
	if resp["id"] != "w" || !strings.Contains(resp["raw"].(string), `id \"w\" is already in use`) {
		t.Fatalf("duplicate id answered %s", resp["raw"])
	}
	p.send(`{"jsonrpc":"2.0","id":"a","method":"abort"}` + "\n")
	// The first waitSettled is unaffected: it answers when the aborted period settles.
	for {
		m := p.nextResponse()
		if m["id"] == "w" {
			if m["result"] == nil {
				t.Fatalf("first waitSettled answered %s", m["raw"])
			}
			break
		}
	}
}

func TestBatch(t *testing.T) {
	p := newPeer(t, peerOpts{})
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"getState"},{"jsonrpc":"2.0","method":"fly"},{"jsonrpc":"2.0","id":2,"method":"nope"},{"jsonrpc":"2.0","id":3,"method":"waitSettled"},5]` + "\n")
	resp := p.nextResponse()
	arr, ok := resp["batch"].([]any)
	if !ok || len(arr) != 4 {
		t.Fatalf("batch answer = %v, want an array of 4", resp["raw"])
	}
	ids := []any{}
	for _, el := range arr {
		ids = append(ids, el.(map[string]any)["id"])
	}
	if ids[0] != float64(1) || ids[1] != float64(2) || ids[2] != float64(3) || ids[3] != nil {
		t.Fatalf("batch ids = %v, want [1 2 3 null] in input order", ids)
	}
	if !strings.Contains(resp["raw"].(string), "not allowed in a batch") {
		t.Fatalf("waitSettled in a batch: %s", resp["raw"])
	}
}

// Every method in the schema is served, and nothing is served that is not in the schema.
func TestMethodTableMatchesSchema(t *testing.T) {
	served := map[string]bool{}
	for _, name := range rpc.MethodNames() {
		served[name] = true
	}
	for _, m := range protocol.MethodTypes {
		if !served[m.Name] {
			t.Errorf("method %s is in the schema but not served", m.Name)
		}
		delete(served, m.Name)
	}
	for name := range served {
		t.Errorf("method %s is served but not in the schema", name)
	}
}

// A handler that panics answers -32603 and the server keeps serving.
func TestHandlerPanicAnswersInternalError(t *testing.T) {
	p := newPeer(t, peerOpts{models: panickingModels{}})
	resp := p.call("listModels", nil)
	if e, ok := resp["error"].(map[string]any); !ok || e["code"] != float64(protocol.CodeInternalError) || !strings.Contains(e["message"].(string), "internal error in listModels") {
		t.Fatalf("listModels with a panicking catalogue = %s", resp["raw"])
	}
	if resp := p.call("getState", nil); resp["result"] == nil {
		t.Fatalf("server stopped serving after a panic: %s", resp["raw"])
	}
}

type panickingModels struct{}

func (panickingModels) List() []core.Model { panic("catalogue exploded") }

func (panickingModels) Resolve(string, string) (core.Model, core.Provider, error) {
	panic("catalogue exploded")
}

// Methods that answer after the events they cause cannot be answered inside a batch's array.
func TestBatchRefusesLateAnsweringMethods(t *testing.T) {
	p := newPeer(t, peerOpts{})
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"compact"},{"jsonrpc":"2.0","id":2,"method":"shutdown"},{"jsonrpc":"2.0","id":3,"method":"bash","params":{"command":"true"}},{"jsonrpc":"2.0","id":4,"method":"getState"}]` + "\n")
	resp := p.nextResponse()
	arr := resp["batch"].([]any)
	for i, method := range []string{"compact", "shutdown", "bash"} {
		e, ok := arr[i].(map[string]any)["error"].(map[string]any)
		if !ok || e["code"] != float64(protocol.CodeInvalidRequest) || !strings.Contains(e["message"].(string), method+" is not allowed in a batch") {
			t.Fatalf("%s in a batch answered %v", method, arr[i])
		}
	}
	if arr[3].(map[string]any)["result"] == nil {
		t.Fatalf("getState in the same batch answered %v", arr[3])
	}
}

// A timeout too large for a duration means no timeout, not an immediate one.
func TestWaitSettledHugeTimeout(t *testing.T) {
	step := faux.Reply(faux.Text("x"))
	step.Hang = true
	p := newPeer(t, peerOpts{}, step)
	p.call("prompt", map[string]any{"message": "hi"})
	p.send(`{"jsonrpc":"2.0","id":"w","method":"waitSettled","params":{"timeoutMs":9223372036854775807}}` + "\n")
	p.send(`{"jsonrpc":"2.0","id":"a","method":"abort"}` + "\n")
	for {
		m := p.nextResponse()
		if m["id"] == "w" {
			if m["result"] == nil {
				t.Fatalf("waitSettled with a huge timeout answered %s", m["raw"])
			}
			return
		}
	}
}
