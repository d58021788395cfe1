package e2e_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// hugeSize is the size of the oversized messages: far over the limit the tests set, and far
// over the 64 KiB read buffer.
const hugeSize = 200 << 20

// writeFiller writes n bytes of 'x' to stdin, 1 MiB at a time.
func (p *proc) writeFiller(n int) {
	p.t.Helper()
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for n > 0 {
		c := chunk[:min(n, len(chunk))]
		if _, err := p.stdin.Write(c); err != nil {
			p.t.Fatalf("writing to stdin: %v", err)
		}
		n -= len(c)
	}
}

// A 200 MB ndjson line over a small limit is answered with -32600 once, and the request
// after it is answered.
func TestOversizedLineNDJSON(t *testing.T) {
	p := start(t, options{args: []string{"--framing", "ndjson", "--max-message-bytes", "4096"}, faux: fauxScript()})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"prompt","params":{"message":"`)
	p.writeFiller(hugeSize)
	p.send("\"}}\n")
	checkError(t, p.responseRaw("null"), "oversized line", codeInvalidRequest, "")
	p.result("getState", nil, nil)
	var nulls []*message
	for _, m := range p.history() {
		if m.isResponse() && string(m.ID) == "null" {
			nulls = append(nulls, m)
		}
	}
	if len(nulls) != 1 {
		t.Fatalf("%d answers with id null to one oversized line: %v", len(nulls), nulls)
	}
}

// LSP: a 200 MB body over a small limit is answered with -32600 and skipped; a length longer
// than the body meant is answered with -32700 and the requests swallowed into it are answered.
func TestOversizedAndOverlongLSP(t *testing.T) {
	p := start(t, options{args: []string{"--framing", "lsp", "--max-message-bytes", "4096"}, lsp: true, faux: fauxScript()})
	p.send(fmt.Sprintf("Content-Length: %d\r\n\r\n", hugeSize))
	checkError(t, p.responseRaw("null"), "oversized body", codeInvalidRequest, "")
	p.writeFiller(hugeSize)
	p.result("getState", nil, nil)

	a := requestBody(100, "getState", nil)
	b := p.frame(requestBody(101, "getState", nil))
	c := p.frame(requestBody(102, "getState", nil))
	p.send(fmt.Sprintf("Content-Length: %d\r\n\r\n%s%s%s", len(a)+len(b)+7, a, b, c))
	checkError(t, p.waitFor("parse error", func(m *message) bool {
		return m.isResponse() && string(m.ID) == "null" && m.Error != nil && m.Error.Code == codeParse
	}), "overlong body", codeParse, "")
	for _, id := range []string{"101", "102"} {
		if m := p.responseRaw(id); m.Error != nil {
			t.Fatalf("swallowed request %s: %s", id, m)
		}
	}
}

// A raw U+2028/U+2029 in an id comes back escaped, over real pipes.
func TestIDLineSeparatorEscapedE2E(t *testing.T) {
	p := start(t, options{faux: fauxScript()})
	p.send("{\"jsonrpc\":\"2.0\",\"id\":\"a\u2028b\u2029\",\"method\":\"getState\"}\n")
	m := p.responseRaw(`"a\u2028b\u2029"`)
	if m.Error != nil || strings.ContainsAny(string(m.raw), "\u2028\u2029") {
		t.Fatalf("answer = %s", m)
	}
}
