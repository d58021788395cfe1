package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixtureChunks returns the data of every event of the recorded streams in testdata.
func fixtureChunks(t testing.TB) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.sse"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok && len(d) > 0 && d[0] == '{' {
				out = append(out, bytes.Clone(d))
			}
		}
	}
	return out
}

// trickyChunks are inputs where a hand-written decoder easily differs from encoding/json.
var trickyChunks = []string{
	`{"choices":[{"delta":{"content":"a\"b\\c\/d\b\f\n\r\t\u00e9\u4e2d\ud83d\ude00"}}]}`,
	`{"choices":[{"delta":{"content":"lone \ud83d surrogate \ude00 and \ud83d\u0041"}}]}`,
	`{"choices":[{"delta":{"content":"bad utf-8 ` + "\xff\xfe" + `"}}]}`,
	`{"choices":[{"delta":{"Content":"folded key"}}]}`,
	`{"choices":[{"delta":{"CONTENT":"a","content":"b"}}]}`,
	`{"ID":"x","Model":"m"}`,
	`{"choices":[{"delta":{"\u0063ontent":"escaped key"}}]}`,
	`{"choices":[{"delta":{"content":"a","content":"b"}}]}`,
	`{"choices":[{"index":0},{"index":1,"delta":{"content":"second"}}],"choices":[]}`,
	`{"id":null,"model":null,"choices":null,"usage":null,"error":null}`,
	`{"choices":[null]}`,
	`{"choices":[{"delta":null,"finish_reason":null,"index":null,"usage":null}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":null,"id":null,"function":null}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[null]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[]}}]}`,
	`{"choices":[]}`,
	`{"choices":[{"index":1.0}]}`,
	`{"choices":[{"index":1e2}]}`,
	`{"choices":[{"index":-0}]}`,
	`{"choices":[{"index":-7}]}`,
	`{"choices":[{"index":99999999999999999999}]}`,
	`{"choices":[{"index":"0"}]}`,
	`{"choices":[{"index":01}]}`,
	`{"usage":{"prompt_tokens":1,"completion_tokens":2,"prompt_cache_hit_tokens":3,"prompt_tokens_details":{"cached_tokens":4,"cache_write_tokens":5}}}`,
	`{"usage":{"prompt_tokens_details":{"cached_tokens":null}}}`,
	`{"usage":{"prompt_tokens_details":null,"prompt_cache_hit_tokens":null}}`,
	`{"usage":{"prompt_tokens":1},"usage":{"completion_tokens":2}}`,
	`{"error":{"message":"x","code":502}}`,
	`{"error":"plain"}`,
	`{"error":  [1, 2 ,{"a":null}]  }`,
	`{"id":5}`,
	`{"id":"x",}`,
	`{"id":"x"} trailing`,
	`{"id":"x"}   `,
	` {"id":"x"}`,
	`{"id":"x"`,
	`{"object":"chat.completion.chunk","created":1754000000,"x":[true,false,null,-1.5e+3,0.25E-2,{"y":{"z":[[]]}}]}`,
	`{"x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`{"x":01}`,
	`{"x":1.}`,
	`{"x":.5}`,
	`{"x":-}`,
	`{"x":tru}`,
	`{"x":"ctl` + "\x01" + `"}`,
	`{"x":"bad \q escape"}`,
	`{"x":"short \u12"}`,
	`{"x` + "\xff" + `":1}`,
	`{"ſ":1,"K":2}`,
	`{"choices":[{"delta":{"reaſoning":"folded by Unicode"}}]}`,
	`{"choices":[{"finish_reason":"stop"},{"finish_reason":"length"},{"finish_reason":"tool_calls"},{"finish_reason":"content_filter"}]}`,
	"{\"choices\":[{\"delta\":{\"content\":\"ws\"}\t}\r\n]\n}",
	`{}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"read","arguments":""}},{"index":1,"function":{"arguments":"{\"a\":1}"}}]}},{"delta":{"tool_calls":[{"index":2}]}}]}`,
}

// previous is decoded before each input, so that nothing of a chunk leaks into the next.
const previous = `{"id":"prev","model":"prev-model","choices":[{"index":3,"delta":{"content":"c","reasoning_content":"r","reasoning":"r2","reasoning_text":"r3","tool_calls":[{"index":4,"id":"t","function":{"name":"n","arguments":"a"}},{"index":5}]},"finish_reason":"stop","usage":{"prompt_tokens":9}}],"usage":{"prompt_tokens":1,"prompt_tokens_details":{"cached_tokens":2}},"error":{"e":1}}`

// checkAgainstJSON decodes data with a used decoder and with encoding/json: the same chunk
// or the same error.
func checkAgainstJSON(t *testing.T, data []byte) {
	t.Helper()
	var d chunkDecoder
	if _, err := d.decode([]byte(previous)); err != nil {
		t.Fatal(err)
	}
	got, gerr := d.decode(data)
	var want chunk
	var werr error
	if len(data) == 0 || data[0] != '{' {
		werr = errNotObjectForTest
	} else {
		werr = json.Unmarshal(data, &want)
	}
	switch {
	case gerr != nil || werr != nil:
		if gerr == nil || werr == nil || gerr.Error() != werr.Error() {
			t.Fatalf("%q: error %v, encoding/json %v", data, gerr, werr)
		}
	case !reflect.DeepEqual(*got, want):
		t.Fatalf("%q:\ngot  %#v\nwant %#v", data, *got, want)
	}
}

var errNotObjectForTest = func() error {
	var d chunkDecoder
	_, err := d.decode([]byte("x"))
	return err
}()

func TestChunkDecoderAgreesWithJSON(t *testing.T) {
	for _, c := range fixtureChunks(t) {
		checkAgainstJSON(t, c)
	}
	for _, c := range trickyChunks {
		checkAgainstJSON(t, []byte(c))
	}
	if errNotObjectForTest == nil || errNotObjectForTest.Error() != "not a JSON object" {
		t.Fatalf("not-an-object error = %v", errNotObjectForTest)
	}
}

// The usual chunks take the fast path: a change that sends them to encoding/json would
// pass every other test and lose the speed.
func TestChunkDecoderFastPath(t *testing.T) {
	chunks := fixtureChunks(t)
	for _, line := range strings.Split(string(benchBody(true))+string(benchBody(false)), "\n") {
		if d, ok := strings.CutPrefix(line, "data: {"); ok {
			chunks = append(chunks, []byte("{"+d))
		}
	}
	for _, c := range chunks {
		var d chunkDecoder
		p := chunkParser{b: c, d: &d}
		if !p.chunk(&d.c) {
			t.Errorf("left to encoding/json: %s", c)
		}
	}
	for _, c := range []string{`{"choices":[{"delta":{"Content":"x"}}]}`, `{"id":"a","id":"b"}`, `{"choices":[{"index":1.0}]}`} {
		var d chunkDecoder
		p := chunkParser{b: []byte(c), d: &d}
		if p.chunk(&d.c) {
			t.Errorf("fast path took %s", c)
		}
	}
}

// A text chunk costs one allocation, its text: the id, the model, the finish reason and the
// choices' backing array are reused.
func TestChunkDecoderAllocs(t *testing.T) {
	text := []byte(`{"id":"chatcmpl-B","object":"chat.completion.chunk","created":1754000000,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}],"usage":null}`)
	args := []byte(`{"id":"chatcmpl-B","model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ab"}}]},"finish_reason":null}]}`)
	for _, tc := range []struct {
		data []byte
		want float64
	}{{text, 1}, {args, 1}} {
		var d chunkDecoder
		if _, err := d.decode(tc.data); err != nil {
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(100, func() {
			if _, err := d.decode(tc.data); err != nil {
				t.Fatal(err)
			}
		})
		if n != tc.want {
			t.Errorf("%s: %v allocations, want %v", tc.data, n, tc.want)
		}
	}
}

func FuzzChunkDecoder(f *testing.F) {
	for _, c := range fixtureChunks(f) {
		f.Add(c)
	}
	for _, c := range trickyChunks {
		f.Add([]byte(c))
	}
	f.Add([]byte(previous))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstJSON(t, data)
	})
}
