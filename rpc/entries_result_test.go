package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
)

// marshalEntries is what getEntries wrote before its result was encoded from the lines.
func marshalEntries(t testing.TB, page session.EntriesPage) []byte {
	t.Helper()
	out := protocol.EntriesResult{Entries: make([]protocol.SessionEntry, len(page.Entries)), NextCursor: page.NextCursor}
	for i, e := range page.Entries {
		out.Entries[i] = protocol.SessionEntry(e)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// encodeEntriesResult is the result getEntries writes for a page. It fails if the result's
// Size is not the length it writes.
func encodeEntriesResult(page session.EntriesPage) ([]byte, error) {
	if err := checkEntries(page.Entries); err != nil {
		return nil, err
	}
	r := newEntriesResult(page)
	var out bytes.Buffer
	if _, err := r.WriteTo(&out); err != nil {
		return nil, err
	}
	if out.Len() != r.Size() {
		return nil, fmt.Errorf("Size %d, wrote %d bytes", r.Size(), out.Len())
	}
	return out.Bytes(), nil
}

func TestEncodeEntriesResultIsJSONMarshal(t *testing.T) {
	lines := []string{
		`{"type":"message","id":"a1","parentId":null}`,
		` { "type" : "label" ,` + "\t" + `"id":"b2" , "label":"x y\tz" }` + "\r\n",
		`{"id":"c3","text":"<b>&amp;</b> a\u2028b\u2029c \u2027 \u202a"}`,
		`{"id":"d4","text":"quote \" backslash \\ slash \/ \u003c <>&","n":[1, 2.5e3 ,-0,true,false,null]}`,
		`{"id":"e5","text":"` + "\u2028\u2029 caf\u00e9 \U0001F600 \xe2\x82\xac" + `"}`,
		`{"id":"f6","nested":{"a":[{"b":" < "} , {}],"c":""}}`,
		`{"id":"g7","text":"ends with backslash \\"}`,
		`[]`,
		`"just a string with <tag>"`,
	}
	for _, cursor := range []string{"", "a1", "<&>"} {
		var page session.EntriesPage
		page.NextCursor = cursor
		page.Entries = []json.RawMessage{}
		for _, l := range lines {
			page.Entries = append(page.Entries, json.RawMessage(l))
		}
		got, err := encodeEntriesResult(page)
		if err != nil {
			t.Fatal(err)
		}
		if want := marshalEntries(t, page); !bytes.Equal(got, want) {
			t.Errorf("cursor %q:\n got %s\nwant %s", cursor, got, want)
		}
	}
	empty, err := encodeEntriesResult(session.EntriesPage{Entries: []json.RawMessage{}})
	if err != nil || string(empty) != `{"entries":[]}` {
		t.Errorf("empty page: %s, %v", empty, err)
	}
}

func TestEncodeEntriesResultRefusesAnEmptyEntry(t *testing.T) {
	_, err := encodeEntriesResult(session.EntriesPage{Entries: []json.RawMessage{json.RawMessage(`{}`), nil}})
	if err == nil {
		t.Fatal("an empty entry was encoded")
	}
}

// FuzzCompactJSON checks the compaction, and the result's Size, against encoding/json for
// every valid value.
func FuzzCompactJSON(f *testing.F) {
	for _, s := range []string{`{"a": "<\u2028>" , "b":[1,2]}`, ` "x\\"`, "{\"t\":\"\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\"}", `[ ]`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if !json.Valid(src) {
			return
		}
		want, err := json.Marshal(json.RawMessage(src))
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeEntriesResult(session.EntriesPage{Entries: []json.RawMessage{src}})
		if err != nil {
			t.Fatal(err)
		}
		want = append(append([]byte(`{"entries":[`), want...), "]}"...)
		if !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %q\nwant %q", src, got, want)
		}
	})
}
