package rpc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// The fuzz targets share one seed corpus: fuzzSeeds, added to each target and also checked
// in under testdata/fuzz/<Target>/ (rewrite with -write-fuzz-seeds), where `go test -fuzz`
// adds the interesting inputs it finds.

var writeFuzzSeeds = flag.Bool("write-fuzz-seeds", false, "write the shared seed corpus to testdata/fuzz")

// fuzzMax is the message limit of the stream target: small, so that oversized messages
// are common. The readers' targets are internal/transport's, over the same seeds.
const fuzzMax = 64

var fuzzTargets = []string{"FuzzStreamAccept"}

func fuzzSeeds() [][]byte {
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
		strings.Repeat("x", fuzzMax) + "\n" + strings.Repeat("y", fuzzMax+1) + "\n" + strings.Repeat("z", fuzzMax+2) + "\r\n",
		strings.Repeat("a", 3*fuzzMax),
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
		strings.Repeat("w", 4*fuzzMax) + "\n" + req + "\n",
	}
	out := make([][]byte, len(seeds))
	for i, s := range seeds {
		out[i] = []byte(s)
	}
	return out
}

// TestWriteFuzzSeeds writes the shared seed corpus (with -write-fuzz-seeds).
func TestWriteFuzzSeeds(t *testing.T) {
	if !*writeFuzzSeeds {
		return
	}
	for _, target := range fuzzTargets {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, s := range fuzzSeeds() {
			sum := sha256.Sum256(s)
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(s)))
			if err := os.WriteFile(filepath.Join(dir, "seed-"+hex.EncodeToString(sum[:8])), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func addSeeds(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
}

// syncBuffer is a buffer the writer goroutine writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// FuzzStreamAccept: whatever a frame holds, stream validation hands jsonrpc2 only
// well-formed requests or responses, and everything it answers itself is JSON.
func FuzzStreamAccept(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, frame []byte) {
		var out syncBuffer
		w := NewWriter(&out, 1<<20)
		w.Start(FramingNDJSON)
		s := newStream(bytes.NewReader(nil), FramingNDJSON, fuzzMax, w, zerolog.Nop())
		msgs := s.accept(frame)
		w.Close(5 * time.Second)
		for _, m := range msgs {
			checkForJSONRPC2(t, frame, m)
		}
		out.mu.Lock()
		written := out.b.Bytes()
		out.mu.Unlock()
		for _, line := range bytes.Split(bytes.TrimSuffix(written, []byte("\n")), []byte("\n")) {
			if len(written) == 0 {
				break
			}
			if !json.Valid(line) {
				t.Fatalf("frame %q: answer %q is not JSON", frame, line)
			}
			var v any
			_ = json.Unmarshal(line, &v)
			switch v := v.(type) {
			case map[string]any:
				checkResponse(t, frame, v)
			case []any:
				for _, el := range v {
					obj, ok := el.(map[string]any)
					if !ok {
						t.Fatalf("frame %q: batch answer element %v is not an object", frame, el)
					}
					checkResponse(t, frame, obj)
				}
			default:
				t.Fatalf("frame %q: answer %q is neither an object nor an array", frame, line)
			}
		}
	})
}

func checkResponse(t *testing.T, frame []byte, r map[string]any) {
	t.Helper()
	if r["jsonrpc"] != "2.0" {
		t.Fatalf("frame %q: answer %v without jsonrpc 2.0", frame, r)
	}
	if _, ok := r["id"]; !ok {
		t.Fatalf("frame %q: answer %v without id", frame, r)
	}
	e, ok := r["error"].(map[string]any)
	if !ok {
		t.Fatalf("frame %q: answer %v is not an error response", frame, r)
	}
	if _, ok := e["code"].(float64); !ok {
		t.Fatalf("frame %q: error %v without a numeric code", frame, e)
	}
	if _, ok := e["message"].(string); !ok {
		t.Fatalf("frame %q: error %v without a message", frame, e)
	}
}

// checkForJSONRPC2 checks a message handed to jsonrpc2: a request or notification with an
// internal integer id, a string method and object params, or a response.
func checkForJSONRPC2(t *testing.T, frame, m []byte) {
	t.Helper()
	var v map[string]json.RawMessage
	if err := json.Unmarshal(m, &v); err != nil {
		t.Fatalf("frame %q: message for jsonrpc2 %q is not an object: %v", frame, m, err)
	}
	if string(v["jsonrpc"]) != `"2.0"` {
		t.Fatalf("frame %q: message for jsonrpc2 %q lacks jsonrpc 2.0", frame, m)
	}
	method, hasMethod := v["method"]
	if !hasMethod {
		_, hasResult := v["result"]
		_, hasError := v["error"]
		if _, hasID := v["id"]; !hasID || (!hasResult && !hasError) {
			t.Fatalf("frame %q: message for jsonrpc2 %q is neither a request nor a response", frame, m)
		}
		return
	}
	var name string
	if err := json.Unmarshal(method, &name); err != nil {
		t.Fatalf("frame %q: message for jsonrpc2 %q has a non-string method", frame, m)
	}
	if id, ok := v["id"]; ok {
		if _, err := strconv.ParseInt(string(id), 10, 64); err != nil {
			t.Fatalf("frame %q: request for jsonrpc2 %q has id %s, not an internal integer", frame, m, id)
		}
	}
	if p, ok := v["params"]; ok && (len(bytes.TrimSpace(p)) == 0 || bytes.TrimSpace(p)[0] != '{') {
		t.Fatalf("frame %q: request for jsonrpc2 %q has params that are not an object", frame, m)
	}
}
