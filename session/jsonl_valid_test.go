package session

import (
	"encoding/json"
	"strings"
	"testing"
)

var validJSONCases = []string{
	``, ` `, `{}`, `[]`, ` { } `, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1 "b":2}`, `[1,2,]`, `[,]`, `[1 2]`,
	`"x"`, `"x`, `"\"`, `"\\"`, `"\u00e9\u"`, `"\u12G4"`, `"\q"`, `"a` + "\x01" + `b"`, "\"\xff\xfe\"", `"tab	"`,
	`0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e`, `1e+`, `-1.5e-3`, `2.`, `+1`,
	`true`, `tru`, `truex`, `false`, `null`, `nul`, `nulll`, `[true,false,null]`, `{"a":[{"b":{}}],"c":"d"}`,
	`[[[]]]`, `[[[]]`, `[]]`, `{}}`, `{"a":}`, `{"a":1}{"b":2}`, `1 2`, " \t\r\n[1]\n", `[1,"a",{"k":[null]}]`,
	`{"":""}`, `{"a":"b",}`, `["\/"]`,
}

func TestValidJSONIsJSONValid(t *testing.T) {
	for _, c := range validJSONCases {
		if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("%q: validJSON %v, json.Valid %v", c, got, want)
		}
	}
	for _, depth := range []int{10000, 10001} {
		deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		if got, want := validJSON([]byte(deep)), json.Valid([]byte(deep)); got != want {
			t.Errorf("depth %d: validJSON %v, json.Valid %v", depth, got, want)
		}
		deepObj := strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
		if got, want := validJSON([]byte(deepObj)), json.Valid([]byte(deepObj)); got != want {
			t.Errorf("object depth %d: validJSON %v, json.Valid %v", depth, got, want)
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, c := range validJSONCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(lazyFile))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("%q: validJSON %v, json.Valid %v", b, got, want)
		}
	})
}

// A corrupt line nested ten million deep is invalid JSON, not a stack overflow that kills the
// process (gjson.Valid, which recurses once per level without a limit, would).
func TestValidJSONSurvivesDeepNesting(t *testing.T) {
	for _, open := range []string{"[", `{"a":`} {
		if validJSON([]byte(strings.Repeat(open, 10_000_000))) {
			t.Errorf("%q × 10,000,000: valid", open)
		}
	}
}

// A session file with such a line opens: the line is skipped with a warning, the rest kept;
// also when the nesting is inside an entry whose head reads well.
func TestOpenSkipsADeeplyNestedLine(t *testing.T) {
	_, want := parseLazy([]byte(lazyFile))
	for _, deep := range []string{
		strings.Repeat("[", 10_000_000),
		`{"type":"label","id":"deep0001","x":` + strings.Repeat(`{"a":`, 10_000_000),
	} {
		l, got := parseLazy([]byte(strings.Replace(lazyFile, "\n", "\n"+deep+"\n", 1)))
		if len(got) != len(want) || len(l.Warnings) != 1 {
			t.Fatalf("%.20s…: %d entries (want %d), warnings %.200q", deep, len(got), len(want), l.Warnings)
		}
	}
}

// Checking a line allocates nothing: jsontext's decoders are pooled.
func TestValidJSONAllocatesNothing(t *testing.T) {
	line := []byte(`{"type":"message","id":"a1b2c3d4","parentId":"e5f6a7b8","message":{"role":"assistant","content":[{"type":"text","text":"hi \"there\" é"}]}}`)
	validJSON(line)
	if allocs := testing.AllocsPerRun(100, func() {
		if !validJSON(line) {
			t.Fatal("invalid")
		}
	}); allocs != 0 {
		t.Fatalf("validJSON allocated %.0f times per line", allocs)
	}
}
