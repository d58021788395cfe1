// Package fuzzseed is the seed corpus the wire's fuzz targets share (internal/transport's
// readers and classifier, rpc's stream): frames of every kind of bad input, both framings,
// and lines around the message limit. Only tests import it.
package fuzzseed

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var write = flag.Bool("write-fuzz-seeds", false, "write the shared seed corpus to testdata/fuzz")

// Add adds the corpus for a message limit of max to a fuzz target.
func Add(f *testing.F, max int) {
	for _, s := range Seeds(max) {
		f.Add(s)
	}
}

// WriteIfAsked is each package's TestWriteFuzzSeeds: with -write-fuzz-seeds it writes the
// corpus for max under testdata/fuzz for each of the package's targets; without, nothing.
func WriteIfAsked(t *testing.T, targets []string, max int) {
	t.Helper()
	if !*write {
		return
	}
	if err := Write(filepath.Join("testdata", "fuzz"), targets, Seeds(max)); err != nil {
		t.Fatal(err)
	}
}

// Seeds returns the corpus for a reader whose message limit is max.
func Seeds(max int) [][]byte {
	req := `{"jsonrpc":"2.0","id":1,"method":"getState"}`
	lsp := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	seeds := []string{
		"",
		"\n",
		"\r\n",
		"\r",
		req + "\n",
		req + "\r\n" + req,
		req,
		"\xEF\xBB\xBF" + req + "\n",
		"  \t\n" + req + "\n",
		"{oops\n",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"p\":\"\xff\"}\n",
		"42\n\"s\"\nnull\ntrue\n[]\n[1]\n",
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"w","method":"waitSettled"}]` + "\n",
		`[{"jsonrpc":"2.0","method":"n"}]` + "\n",
		`{"jsonrpc":"2.0","id":{},"method":"a"}` + "\n" + `{"jsonrpc":"2.0","id":null,"method":"a"}` + "\n",
		`{"jsonrpc":"2.0","id":1e400,"method":"a"}` + "\n" + `{"jsonrpc":"2.0","id":-0.5,"method":"a"}` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"b"}` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":5}` + "\n" + `{"jsonrpc":"2.0","id":2}` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"a","params":[1]}` + "\n" + `{"jsonrpc":"2.0","method":"a","params":"x"}` + "\n",
		`{"jsonrpc":"2.0","id":7,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m"}}` + "\n",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\u2028b\"}\n",
		strings.Repeat("x", max) + "\n" + strings.Repeat("y", max+1) + "\n" + strings.Repeat("z", max+2) + "\r\n",
		strings.Repeat("a", 3*max),
		lsp(req),
		lsp(req) + lsp(req),
		"content-length: 2\n\n{}",
		"CONTENT-LENGTH:2\r\ncontent-type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
		"Content-Type: x\r\n\r\n{}Content-Length: 2\r\n\r\n{}",
		"Content-Length: nine\r\n\r\n{}",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 99999999999999999999\r\n\r\n",
		"Content-Length: 1000\r\n\r\n" + strings.Repeat("q", 1000) + lsp(req),
		"garbage\r\n\r\nxx Content-Length: 2\r\n\r\n{}",
		"Content-Length: 10\r\n\r\n{}",
		"\r\n\r\n" + lsp(req),
		"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}}",
		// Raw U+2028/U+2029 in ids, answers with ids of every type, a length longer than
		// its body, an oversized line that ends after the buffer.
		"{\"jsonrpc\":\"2.0\",\"id\":\"a\u2028b\u2029\",\"method\":\"x\"}\n{\"jsonrpc\":\"1.0\",\"id\":\"\u2028\",\"method\":\"x\"}\n",
		`{"jsonrpc":"2.0","id":{"a":1},"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":[1],"error":{"code":1,"message":"m"}}` + "\n" + `{"jsonrpc":"2.0","id":null,"result":1}` + "\n" + `{"jsonrpc":"2.0","id":true,"result":1}` + "\n",
		`{"jsonrpc":"2.0","id":"p","result":{},"error":{"code":1,"message":"m"}}` + "\n" + `{"id":"p","result":{}}` + "\n",
		"Content-Length: 60\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"a"}` + lsp(`{"id":2}`) + lsp(`{"id":3}`),
		"Content-Length: 30\r\n\r\n{}" + lsp("{}") + "xx",
		strings.Repeat("w", 4*max) + "\n" + req + "\n",
	}
	out := make([][]byte, len(seeds))
	for i, s := range seeds {
		out[i] = []byte(s)
	}
	return out
}

// Write writes seeds as go test's corpus files under dir/<target>/ for each target, named
// by their hash so that rewriting is idempotent.
func Write(dir string, targets []string, seeds [][]byte) error {
	for _, target := range targets {
		d := filepath.Join(dir, target)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		for _, s := range seeds {
			sum := sha256.Sum256(s)
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(s)))
			if err := os.WriteFile(filepath.Join(d, "seed-"+hex.EncodeToString(sum[:8])), []byte(body), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
