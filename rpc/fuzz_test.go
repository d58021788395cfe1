package rpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/internal/transport/fuzzseed"
	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"
)

// The fuzz targets share one seed corpus: fuzzseed's, added to each target and also checked
// in under testdata/fuzz/<Target>/ (rewrite with -write-fuzz-seeds), where `go test -fuzz`
// adds the interesting inputs it finds.

// fuzzMax is the message limit of the stream target: small, so that oversized messages
// are common. The readers' targets are internal/transport's, over the same seeds.
const fuzzMax = 64

var fuzzTargets = []string{"FuzzStreamAccept"}

// TestWriteFuzzSeeds writes the shared seed corpus (with -write-fuzz-seeds).
func TestWriteFuzzSeeds(t *testing.T) { fuzzseed.WriteIfAsked(t, fuzzTargets, fuzzMax) }

func addSeeds(f *testing.F) { fuzzseed.Add(f, fuzzMax) }

// FuzzStreamAccept: whatever a frame holds, stream validation hands jsonrpc2 only
// well-formed requests or responses, and everything it answers itself is JSON.
func FuzzStreamAccept(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, frame []byte) {
		var out testkit.Buffer
		w := NewWriter(&out, 1<<20)
		w.Start(FramingNDJSON)
		s := newStream(bytes.NewReader(nil), FramingNDJSON, fuzzMax, w, zerolog.Nop())
		msgs := s.accept(frame)
		w.Close(5 * time.Second)
		for _, m := range msgs {
			checkForJSONRPC2(t, frame, m)
		}
		written := []byte(out.String())
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
// string id (its key), a string method and object params, or a response.
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
		var key string
		if err := json.Unmarshal(id, &key); err != nil || (!strings.HasPrefix(key, "'") && !json.Valid([]byte(key))) {
			t.Fatalf("frame %q: request for jsonrpc2 %q has id %s, not a key (keyOf)", frame, m, id)
		}
	}
	var req jsonrpc2.Request
	if err := json.Unmarshal(m, &req); err != nil || (!req.Notif && !req.ID.IsString) {
		t.Fatalf("frame %q: jsonrpc2 cannot take request %q: %v", frame, m, err)
	}
	if p, ok := v["params"]; ok && (len(bytes.TrimSpace(p)) == 0 || bytes.TrimSpace(p)[0] != '{') {
		t.Fatalf("frame %q: request for jsonrpc2 %q has params that are not an object", frame, m)
	}
}
