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
	for _, depth := range []int{maxJSONDepth, maxJSONDepth + 1} {
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

func TestSkipStringFindsTheClosingQuote(t *testing.T) {
	for _, c := range []string{`""`, `"a"`, `"a\"b"`, `"a\\"`, `"a\\\"b"`, `"\\\\"`, `"x\u0022y"`} {
		if got := skipString([]byte(c+`,"next"`), 0); got != len(c) {
			t.Errorf("%s: ends at %d, want %d", c, got, len(c))
		}
	}
}
