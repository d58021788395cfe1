package partialjson

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/benchmem"
)

// streamDocs are well-formed objects the incremental path must handle on its own.
var streamDocs = []string{
	`{}`,
	` { } `,
	`{"a":1}`,
	`{"path":"src/main.go","content":"package main\n\nfunc main() {}\n"}`,
	`{"edits":[{"oldText":"a\"b\\n","newText":"ü 🙂"},{"oldText":"","newText":"x"}],"n":12.5e1}`,
	`{"esc":"\"\\\/\b\f\n\r\t","u":"\u00e9\u4e2d\u0000\u001f","pair":"\ud83d\ude00!","P":"\uD83D\uDE00"}`,
	`{"lone":"\ud83d","lone2":"\ud83dx","lone3":"\ude00","hh":"\ud83d\ud83d\ude00","hn":"\ud83d\n","hq":"\ud83d\"","hA":"\ud83d\u0041"}`,
	`{"utf8":"é中🙂\u00e9€𝄞","k€y":"v"}`,
	`{"nums":[0,-0,1,-1,0.5,-0.25,1e3,1E+3,1e-3,-1.5E-7,123456789012345678901234567890,0.1000000000000000055511151231257827,4.9e-324,1e-400,1.7976931348623157e308]}`,
	`{"t":true,"f":false,"n":null,"arr":[true,false,null],"z":0}`,
	`{"empty":{},"ea":[],"nested":[[],[[]],{},[{}],{"a":[{"b":{"c":[1,[2,[3]]]}}]}]}`,
	" {\n\t\"a\" :\r\n [ 1 , 2 ,\t{ \"b\" : \"c\" } ] ,\n \"d\" : { } \n}\n ",
	`{"dup":1,"dup":"two","dup":[3],"dup":{"four":4},"dup":-5.5,"dup":null}`,
	`{"dup":"x","dup":-1}`,
	`{"dup":"x","dup":tru`,
	`{"a":"hel`,
	`{"a":[1,2,{"b":"c`,
	`{"a":-`,
	`{"a":1.`,
	`{"a":1e+`,
	`{"":""}`,
	`{"a":"x","b"`,
	`{"a":"\u00e9\u`,
	`{"a":"\ud83d\ude`,
	`{"a":[1,[2,[3,-`,
	`{"a":[nul`,
	`{"a":[null`,
	`{"a":[-0.`,
	"{\"long\":\"" + strings.Repeat("0123456789abcdef\\n\\\"é🙂\\u00e9", 64) + "\"}",
}

// invalidDocs are not prefixes of a JSON object; the parser must fall back and still agree.
var invalidDocs = []string{
	`[1,2]`,
	`"str"`,
	`null`,
	`not json`,
	`{"a":1}garbage`,
	`{"a":1} {"b":2}`,
	`{"a":1,}`,
	`{"a":[1,]}`,
	`{"a" 1}`,
	`{a:1}`,
	`{"a":01}`,
	`{"a":1.e5}`,
	`{"a":.5}`,
	`{"a":+1}`,
	`{"a":1-2}`,
	`{"a":1e400}`,
	`{"a":-1e400,"b":2}`,
	`{"a":tru}`,
	`{"a":truex}`,
	`{"a":nan}`,
	"{\"a\":\"line\nbreak\"}",
	"{\"a\":\"tab\there\",\"b\":\"\x01\"}",
	"{\"a\x00\":1}",
	`{"path":"C:\dir\new"}`,
	`{"a":"\x"}`,
	`{"a":"\u12G4"}`,
	`{"a":"\uZZ`,
	`{"a":"\ud83d\uZZZZ"}`,
	"{\"a\":\"\xff\"}",
	"{\"a\":\"\xe2\x82\"}",
	"{\"a\":\"\xe2\x82",
	"{\"a\":\"\xed\xa0\x80\",\"b\":\"\xc0\xaf\",\"c\":\"\xf4\x90\x80\x80\"}",
	"{\"\xff\":1}",
	"\v{\"a\":1}",
	"{\"a\":1}\v",
	"\ufeff{\"a\":1}",
	"{\"a\":1}\u00a0",
	`{"a":{"b":1]}`,
	`{"a":[1}`,
	`}`,
	`{"a":1}}`,
}

// writeAndCompare streams doc in the given fragment sizes (the last fragment takes the
// rest), comparing Value after every Write with Parse of the prefix.
func writeAndCompare(t *testing.T, doc string, sizes []int) *Parser {
	t.Helper()
	var p Parser
	at := 0
	for k := 0; at < len(doc); k++ {
		n := len(doc) - at
		if k < len(sizes) && sizes[k] < n {
			n = sizes[k]
		}
		p.Write(doc[at : at+n])
		at += n
		got, want := p.Value(), Parse(doc[:at])
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("doc %q, fragments %v: after %d bytes got %#v, want %#v", doc, sizes, at, got, want)
		}
	}
	if got, want := p.Value(), Parse(doc); !reflect.DeepEqual(got, want) {
		t.Fatalf("doc %q: final %#v, want %#v", doc, got, want)
	}
	return &p
}

func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// checkAllSplits streams doc byte by byte, in two pieces cut at every position, and in
// seeded random fragment sizes.
func checkAllSplits(t *testing.T, doc string) []*Parser {
	t.Helper()
	ps := []*Parser{writeAndCompare(t, doc, ones(len(doc)))}
	for k := 0; k <= len(doc); k++ {
		ps = append(ps, writeAndCompare(t, doc, []int{k}))
	}
	rng := rand.New(rand.NewPCG(1, uint64(len(doc))))
	for range 20 {
		var sizes []int
		for total := 0; total < len(doc); {
			n := 1 + rng.IntN(9)
			sizes = append(sizes, n)
			total += n
		}
		ps = append(ps, writeAndCompare(t, doc, sizes))
	}
	return ps
}

func TestPartialJSONStream(t *testing.T) {
	for _, doc := range streamDocs {
		for _, p := range checkAllSplits(t, doc) {
			if p.fallback {
				t.Errorf("doc %q fell back; well-formed input must stay incremental", doc)
				break
			}
		}
	}
}

func TestPartialJSONStreamInvalid(t *testing.T) {
	for _, doc := range invalidDocs {
		checkAllSplits(t, doc)
	}
}

// TestPartialJSONStreamTruncations compares every prefix of every document streamed in
// 3-byte fragments, so that documents cut off anywhere (inside keys, escapes, numbers and
// literals) are themselves streamed.
func TestPartialJSONStreamTruncations(t *testing.T) {
	for _, doc := range append(append([]string{}, streamDocs...), invalidDocs...) {
		for i := 0; i <= len(doc); i++ {
			writeAndCompare(t, doc[:i], []int{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3})
		}
	}
}

// TestPartialJSONStreamValueBeforeWrite covers a parser that has seen nothing or only space.
func TestPartialJSONStreamValueBeforeWrite(t *testing.T) {
	var p Parser
	if v := p.Value(); v == nil || len(v) != 0 {
		t.Fatalf("zero value = %#v, want an empty map", v)
	}
	p.Write("")
	p.Write(" \n")
	if v := p.Value(); v == nil || len(v) != 0 {
		t.Fatalf("after space = %#v, want an empty map", v)
	}
}

// TestPartialJSONStreamSkippedValues writes many fragments between calls to Value.
func TestPartialJSONStreamSkippedValues(t *testing.T) {
	for _, doc := range streamDocs {
		for every := 2; every <= 7; every++ {
			var p Parser
			for i := 0; i < len(doc); i++ {
				p.Write(doc[i : i+1])
				if i%every == 0 || i == len(doc)-1 {
					if got, want := p.Value(), Parse(doc[:i+1]); !reflect.DeepEqual(got, want) {
						t.Fatalf("doc %q after %d bytes: got %#v, want %#v", doc, i+1, got, want)
					}
				}
			}
		}
	}
}

// FuzzPartialJSONIncremental streams s in fragments whose sizes come from cuts and compares
// every Value with Parse of the prefix.
func FuzzPartialJSONIncremental(f *testing.F) {
	for _, doc := range streamDocs {
		f.Add(doc, []byte{1, 2, 3, 5, 8, 13})
	}
	for _, doc := range invalidDocs {
		f.Add(doc, []byte{4, 1, 7})
	}
	f.Fuzz(func(t *testing.T, s string, cuts []byte) {
		var p Parser
		at := 0
		for k := 0; at < len(s); k++ {
			n := len(s) - at
			if k < len(cuts) && int(cuts[k]) < n {
				n = int(cuts[k])
			}
			p.Write(s[at : at+n])
			at += n
			if got, want := p.Value(), Parse(s[:at]); !reflect.DeepEqual(got, want) {
				t.Fatalf("after %d bytes of %q (cuts %v): got %#v, want %#v", at, s, cuts, got, want)
			}
		}
	})
}

// BenchmarkPartialJSONStream measures the incremental parser on benchmem's 10 KB write call,
// streamed in 16-byte fragments, reading the value after every fragment as MessageBuilder
// does.
func BenchmarkPartialJSONStream(b *testing.B) {
	frags := benchmem.WriteCallArgs()
	b.ReportAllocs()
	m := benchmem.Read()
	for b.Loop() {
		var p Parser
		for _, f := range frags {
			p.Write(f)
			_ = p.Value()
		}
	}
	m.Report(b, len(frags))
}

// BenchmarkParseStream is the quadratic baseline: Parse of the whole prefix after every fragment, as MessageBuilder did before Parser.
func BenchmarkParseStream(b *testing.B) {
	frags := benchmem.WriteCallArgs()
	b.ReportAllocs()
	m := benchmem.Read()
	for b.Loop() {
		var sb strings.Builder
		for _, f := range frags {
			sb.WriteString(f)
			_ = Parse(sb.String())
		}
	}
	m.Report(b, len(frags))
}
