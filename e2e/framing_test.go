package e2e_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestFramings runs a prompt to agent_settled in each framing, explicit and auto-detected
// (BOM, leading whitespace, C or c starting the header), checking the output's framing.
func TestFramings(t *testing.T) {
	lspBody := requestBody(1, "initialize", nil)
	lspMsg := func(header string) string { return fmt.Sprintf("%s: %d\r\n\r\n%s", header, len(lspBody), lspBody) }
	tests := []struct {
		name  string
		args  []string
		lsp   bool
		first string // the bytes carrying the first request (id 1)
	}{
		{"ndjson explicit", []string{"--framing", "ndjson"}, false, lspBody + "\n"},
		{"lsp explicit", []string{"--framing", "lsp"}, true, lspMsg("Content-Length")},
		{"auto object", nil, false, lspBody + "\n"},
		{"auto batch", nil, false, "[" + lspBody + "]\n"},
		{"auto BOM", nil, false, "\xEF\xBB\xBF" + lspBody + "\n"},
		{"auto whitespace", nil, false, " \t\r\n\n" + lspBody + "\r\n"},
		{"auto BOM whitespace", nil, false, "\xEF\xBB\xBF\n  " + lspBody + "\n"},
		{"auto C", nil, true, lspMsg("Content-Length")},
		{"auto c", nil, true, lspMsg("content-length")},
		{"auto BOM C", nil, true, "\xEF\xBB\xBF" + lspMsg("Content-Length")},
		{"auto whitespace C", nil, true, "\r\n " + lspMsg("CONTENT-LENGTH")},
		{"auto bare LF headers", nil, true, fmt.Sprintf("Content-Length: %d\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\n%s", len(lspBody), lspBody)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, options{args: tc.args, lsp: tc.lsp, faux: fauxScript(text("framed reply"))})
			p.nextID = 1
			p.send(tc.first)
			r := p.next()
			if r.batch != nil {
				if len(r.batch) != 1 || string(r.batch[0].ID) != "1" {
					t.Fatalf("batch response = %s", r)
				}
			} else if string(r.ID) != "1" || r.Error != nil {
				t.Fatalf("first response = %s, want initialize's result", r)
			}
			p.result("prompt", map[string]any{"message": "hi"}, nil)
			s := settledOf(t, p.event("agent_settled"))
			if s.Error != nil || s.Aborted {
				t.Errorf("run did not complete: %+v", s)
			}
			p.closeStdin()
			if code := p.wait(); code != 0 {
				t.Errorf("exit code %d, want 0", code)
			}
		})
	}
}

// TestAutoDetectOther: anything else than {, [, C or c selects ndjson, and that line gets
// -32700; the server goes on.
func TestAutoDetectOther(t *testing.T) {
	p := start(t, options{faux: fauxScript()})
	p.send("hello\n")
	checkError(t, p.responseRaw("null"), "non-JSON first line", codeParse, "")
	p.result("getState", nil, nil)
}

// TestNothingWrittenBeforeInput: the server writes nothing before the first input byte, and
// exits 0 on EOF without output.
func TestNothingWrittenBeforeInput(t *testing.T) {
	p := start(t, options{faux: fauxScript()})
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if h := p.history(); len(h) != 0 {
		t.Errorf("output without input: %v", h)
	}
}

// badInput is one row of the table in docs/protocol.md#bad-input.
type badInput struct {
	name  string
	input string
	// code is the expected error code (0: no reply at all); id the expected id bytes.
	code    int
	id      string
	message string
}

func badInputRows() []badInput {
	return []badInput{
		{"not JSON", "{oops\n", codeParse, "null", "Parse error"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"getState\",\"x\":\"\xff\"}\n", codeParse, "null", "invalid UTF-8"},
		{"invalid UTF-8 in a key", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"getState\",\"\xc3\":1}\n", codeParse, "null", ""},
		{"a number", "42\n", codeInvalidRequest, "null", ""},
		{"a string", "\"hi\"\n", codeInvalidRequest, "null", ""},
		{"null", "null\n", codeInvalidRequest, "null", ""},
		{"empty batch", "[]\n", codeInvalidRequest, "null", ""},
		{"jsonrpc absent", `{"id":7,"method":"getState"}` + "\n", codeInvalidRequest, "7", `"jsonrpc" must be "2.0"`},
		{"jsonrpc wrong", `{"jsonrpc":"1.0","id":"x","method":"getState"}` + "\n", codeInvalidRequest, `"x"`, ""},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":8,"method":"getState"}` + "\n", codeInvalidRequest, "8", ""},
		{"jsonrpc wrong, id invalid", `{"jsonrpc":"1.0","id":{},"method":"getState"}` + "\n", codeInvalidRequest, "null", ""},
		{"id object", `{"jsonrpc":"2.0","id":{"a":1},"method":"getState"}` + "\n", codeInvalidRequest, "null", "id must be"},
		{"id array", `{"jsonrpc":"2.0","id":[1],"method":"getState"}` + "\n", codeInvalidRequest, "null", ""},
		{"id boolean", `{"jsonrpc":"2.0","id":true,"method":"getState"}` + "\n", codeInvalidRequest, "null", ""},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"getState"}` + "\n", codeInvalidRequest, "null", ""},
		{"negative id", `{"jsonrpc":"2.0","id":-12,"method":"fly"}` + "\n", codeMethodNotFound, "-12", ""},
		{"fractional id", `{"jsonrpc":"2.0","id":1.50,"method":"fly"}` + "\n", codeMethodNotFound, "1.50", ""},
		{"exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"fly"}` + "\n", codeMethodNotFound, "1e3", ""},
		{"huge id", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"fly"}` + "\n", codeMethodNotFound, "123456789012345678901234567890", ""},
		{"string id", `{"jsonrpc":"2.0","id":"a\"b\u00e9","method":"fly"}` + "\n", codeMethodNotFound, `"a\"b\u00e9"`, ""},
		{"method missing", `{"jsonrpc":"2.0","id":3}` + "\n", codeInvalidRequest, "3", `"method" must be a string`},
		{"method not a string", `{"jsonrpc":"2.0","id":3,"method":5}` + "\n", codeInvalidRequest, "3", ""},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"fly"}` + "\n", codeMethodNotFound, "4", "Method not found: fly"},
		{"unknown notification", `{"jsonrpc":"2.0","method":"fly"}` + "\n", 0, "", ""},
		{"params an array", `{"jsonrpc":"2.0","id":5,"method":"getState","params":[1]}` + "\n", codeInvalidParams, "5", ""},
		{"params a string", `{"jsonrpc":"2.0","id":5,"method":"prompt","params":"hi"}` + "\n", codeInvalidParams, "5", ""},
		{"wrong field type", `{"jsonrpc":"2.0","id":6,"method":"prompt","params":{"message":5}}` + "\n", codeInvalidParams, "6", "params.message: expected string, got number"},
		{"missing field", `{"jsonrpc":"2.0","id":8,"method":"prompt","params":{}}` + "\n", codeInvalidParams, "8", "params.message"},
		{"unknown fields", `{"jsonrpc":"2.0","id":9,"method":"getState","params":{"bogus":1},"extra":true}` + "\n", 0, "9", ""},
		{"request-only method as a notification", `{"jsonrpc":"2.0","method":"prompt","params":{"message":"hi"}}` + "\n", 0, "", ""},
		{"exit with an id", `{"jsonrpc":"2.0","id":10,"method":"exit"}` + "\n", codeInvalidRequest, "10", "exit is a notification"},
		{"$/ request", `{"jsonrpc":"2.0","id":11,"method":"$/progress"}` + "\n", codeMethodNotFound, "11", ""},
		{"$/ notification", `{"jsonrpc":"2.0","method":"$/progress","params":{}}` + "\n", 0, "", ""},
		{"response to nothing", `{"jsonrpc":"2.0","id":77,"result":{}}` + "\n", 0, "", ""},
		{"error response to nothing", `{"jsonrpc":"2.0","id":"s1","error":{"code":1,"message":"no"}}` + "\n", 0, "", ""},
		{"too large", `{"jsonrpc":"2.0","id":12,"method":"prompt","params":{"message":"` + strings.Repeat("x", 5000) + `"}}` + "\n", codeInvalidRequest, "null", "message too large"},
		{"too large, not JSON", strings.Repeat("\x00", 9000) + "\n", codeInvalidRequest, "null", "message too large"},
		{"CRLF line", `{"jsonrpc":"2.0","id":13,"method":"fly"}` + "\r\n", codeMethodNotFound, "13", ""},
		{"U+2028 inside a line", "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"fly\u2028\"}\n", codeMethodNotFound, "14", ""},
	}
}

// TestBadInputTable sends each row of docs/protocol.md#bad-input to the binary, checks
// the answer, and checks that the server keeps serving after each.
func TestBadInputTable(t *testing.T) {
	p := start(t, options{faux: fauxScript(), args: []string{"--max-message-bytes", "4096"}})
	for _, tc := range badInputRows() {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			p.send(tc.input)
			switch {
			case tc.code == 0 && tc.id != "":
				if r := p.responseRaw(tc.id); r.Error != nil {
					t.Fatalf("response %s, want a result", r)
				}
			case tc.code == 0:
				p.expectNoMessage(tc.name)
			default:
				r := p.next()
				if !r.isResponse() || string(r.ID) != tc.id {
					t.Fatalf("got %s, want a response with id %s", r, tc.id)
				}
				e := checkError(t, r, tc.name, tc.code, "")
				if !strings.Contains(e.Message, tc.message) {
					t.Errorf("message %q lacks %q", e.Message, tc.message)
				}
			}
			p.result("getState", nil, nil)
		})
	}
}

// TestBadInputLSP: the LSP reader's rows: a missing or oversized Content-Length gets -32600
// and the reader resynchronises at the next Content-Length.
func TestBadInputLSP(t *testing.T) {
	p := start(t, options{faux: fauxScript(), lsp: true, args: []string{"--framing", "lsp", "--max-message-bytes", "2048"}})
	good := requestBody(1, "getState", nil)
	big := requestBody(2, "prompt", map[string]any{"message": strings.Repeat("y", 4000)})
	tests := []struct {
		name, input, message string
	}{
		{"missing Content-Length", "Content-Type: x\r\n\r\n{\"jsonrpc\":\"2.0\"}", "missing Content-Length"},
		{"bad Content-Length", "Content-Length: nine\r\n\r\n{}", "invalid Content-Length"},
		{"negative Content-Length", "Content-Length: -4\r\n\r\n{}", "invalid Content-Length"},
		{"header without colon", "garbage line\r\n\r\n{}", "malformed header"},
		{"oversized", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(big), big), "message too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			p.send(tc.input)
			p.send(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(good), good))
			r := p.next()
			e := checkError(t, r, tc.name, codeInvalidRequest, "")
			if string(r.ID) != "null" || !strings.Contains(e.Message, tc.message) {
				t.Errorf("got %s, want id null and %q", r, tc.message)
			}
			if r := p.next(); string(r.ID) != "1" || r.Error != nil {
				t.Errorf("after %s: got %s, want getState's result (resynchronised)", tc.name, r)
			}
		})
	}
}

// TestBatches: a batch gets one array in input order, written before any event its elements
// cause; notifications add nothing; waitSettled in a batch is refused; an all-notification
// batch gets no reply.
func TestBatches(t *testing.T) {
	p := start(t, options{faux: fauxScript(text("batched"))})
	p.send("[" + strings.Join([]string{
		requestBody("a", "getState", nil),
		requestBody(nil, "fly", nil),
		requestBody("b", "prompt", map[string]any{"message": "hi"}),
		requestBody("c", "waitSettled", nil),
		requestBody("d", "fly", nil),
		`{"jsonrpc":"1.0","id":"e","method":"getState"}`,
	}, ",") + "]\n")
	r := p.next()
	if r.batch == nil {
		t.Fatalf("first message = %s, want the batch's array before any event", r)
	}
	var ids []string
	for _, el := range r.batch {
		ids = append(ids, string(el.ID))
	}
	if got := strings.Join(ids, ","); got != `"a","b","c","d","e"` {
		t.Fatalf("batch response ids = %s, want \"a\",\"b\",\"c\",\"d\",\"e\" in input order", got)
	}
	if r.batch[0].Error != nil || r.batch[1].Error != nil {
		t.Errorf("batch getState/prompt failed: %s", r)
	}
	if e := r.batch[2].Error; e == nil || e.Code != codeInvalidRequest || !strings.Contains(e.Message, "not allowed in a batch") {
		t.Errorf("waitSettled in a batch = %s, want -32600 not allowed in a batch", r.batch[2])
	}
	if e := r.batch[3].Error; e == nil || e.Code != codeMethodNotFound {
		t.Errorf("unknown method in a batch = %s", r.batch[3])
	}
	if e := r.batch[4].Error; e == nil || e.Code != codeInvalidRequest {
		t.Errorf("bad jsonrpc in a batch = %s", r.batch[4])
	}
	p.event("agent_settled")
	p.send("[" + requestBody(nil, "fly", nil) + "," + requestBody(nil, "$/cancelRequest", map[string]any{"id": 1}) + "]\n")
	p.expectNoMessage("all-notification batch")
}

// TestPendingIDReuse: a request id still pending gets -32600 "already in use"; the first
// request is unaffected.
func TestPendingIDReuse(t *testing.T) {
	p := start(t, options{faux: fauxScript(hanging())})
	p.result("prompt", map[string]any{"message": "go"}, nil)
	p.send(requestBody("w", "waitSettled", nil) + "\n")
	p.send(requestBody("w", "getState", nil) + "\n")
	e := checkError(t, p.responseRaw(`"w"`), "reused id", codeInvalidRequest, "")
	if !strings.Contains(e.Message, "already in use") {
		t.Errorf("message %q", e.Message)
	}
	p.result("abort", nil, nil)
	ev := p.event("agent_settled")
	w := p.responseRaw(`"w"`)
	var s settled
	w.decode(t, &s)
	if s.LastSeq != ev.seq() {
		t.Errorf("first request with the id = %s, want the settled payload", w)
	}
}
