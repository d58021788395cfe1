package partialjson

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{``, `{}`},
		{`   `, `{}`},
		{`{"a":1}`, `{"a":1}`},
		{`{"a":"hel`, `{"a":"hel"}`},
		{`{"a":"x","b"`, `{"a":"x"}`},
		{`{"a":"x","b":`, `{"a":"x"}`},
		{`{"a":tr`, `{}`},
		{`{"a":true`, `{"a":true}`},
		{`{"a":null`, `{"a":null}`},
		{`{"a":-`, `{}`},
		{`{"a":1.`, `{"a":1}`},
		{`{"a":[1,2,{"b":"c`, `{"a":[1,2,{"b":"c"}]}`},
		{`{"a":"esc\`, `{"a":"esc"}`},
		{`{"a":"\u00e9\u`, `{"a":"é"}`},
		{`{"a":"line` + "\n" + `break"}`, `{"a":"line\nbreak"}`},
		{`{"path":"C:\dir"}`, `{"path":"C:\\dir"}`},
		{`[1,2]`, `{}`},
		{`"str"`, `{}`},
		{`{"a":1}garbage`, `{}`},
		{`not json`, `{}`},
	}
	for _, tc := range tests {
		got := Parse(tc.in)
		var want map[string]any
		if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%q) = %v, want %v", tc.in, got, want)
		}
	}
}

// TestParsePrefixes checks that every prefix of a document parses to an object
// and that the whole parses exactly.
func TestParsePrefixes(t *testing.T) {
	doc := `{"path":"src/main.go","edits":[{"oldText":"a\"b\\n","newText":"ü 🙂"}],"n":12.5e1,"ok":false,"z":null}`
	for i := 0; i <= len(doc); i++ {
		if got := Parse(doc[:i]); got == nil {
			t.Fatalf("prefix %d gave nil", i)
		}
	}
	var want map[string]any
	_ = json.Unmarshal([]byte(doc), &want)
	if got := Parse(doc); !reflect.DeepEqual(got, want) {
		t.Fatalf("whole = %v, want %v", got, want)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`{"a":"b","c":[1,2,{"d":null}]}`)
	f.Add(`{"a":"\ud83d\ude00`)
	f.Fuzz(func(t *testing.T, s string) {
		if Parse(s) == nil {
			t.Fatal("nil result")
		}
	})
}
