package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		in     string
		kind   Kind
		utf8   bool
		reason string
	}{
		{"", Empty, true, ""},
		{" \t\r ", Empty, true, ""},
		{"\u00a0", Empty, true, ""}, // Unicode white space too
		{"{oops", NotJSON, true, "invalid character 'o' looking for beginning of object key string"},
		{"{", NotJSON, true, "unexpected end of JSON input"},
		{"\xff", NotJSON, false, "invalid character 'ÿ' looking for beginning of value"},
		{`{"a":"` + "\xff" + `"}`, Object, false, ""}, // JSON's grammar does not check UTF-8
		{` {"a":1} `, Object, true, ""},
		{`[1,2]`, Batch, true, ""},
		{`[]`, Batch, true, ""},
		{`"s"`, NotObject, true, ""},
		{`42`, NotObject, true, ""},
		{`null`, NotObject, true, ""},
		{`true`, NotObject, true, ""},
	} {
		f := Classify([]byte(tc.in))
		if f.Kind != tc.kind || f.ValidUTF8 != tc.utf8 || f.Reason != tc.reason {
			t.Errorf("Classify(%q) = %v, utf8 %v, %q; want %v, %v, %q", tc.in, f.Kind, f.ValidUTF8, f.Reason, tc.kind, tc.utf8, tc.reason)
		}
	}
	if f := Classify([]byte("  {}\r")); string(f.Data) != "{}" {
		t.Errorf("Data = %q, want the frame without white space", f.Data)
	}
}

// Open skips a BOM and white space before the first message whatever the framing, and with
// Auto decides the framing from the first byte after them.
func TestOpen(t *testing.T) {
	body := `{"a":1}`
	framed := string(AppendHeader(nil, len(body))) + body
	for _, tc := range []struct {
		framing, want Framing
		in            string
	}{
		{Auto, NDJSON, "\xEF\xBB\xBF \r\n" + body + "\n"},
		{Auto, ContentLength, "\n\n" + framed},
		{Auto, ContentLength, strings.ToLower(framed[:1]) + framed[1:]},
		{ContentLength, ContentLength, "\r\n" + framed},
		{NDJSON, NDJSON, " \t" + body},
	} {
		r, f, err := Open(strings.NewReader(tc.in), tc.framing, 1<<10)
		if err != nil || f != tc.want {
			t.Fatalf("Open(%q, %s) = %s, %v; want %s", tc.in, tc.framing, f, err, tc.want)
		}
		if msg, err := r.Next(); err != nil || string(msg) != body {
			t.Fatalf("Open(%q, %s): first message %q, %v", tc.in, tc.framing, msg, err)
		}
	}
	if _, _, err := Open(strings.NewReader(" \n"), Auto, 1<<10); !errors.Is(err, io.EOF) {
		t.Fatalf("input of white space only: %v, want io.EOF", err)
	}
}

// FuzzClassify: the kind agrees with the standard library's view of the frame, whatever it
// holds, and Data is the frame without white space.
func FuzzClassify(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, frame []byte) {
		c := Classify(frame)
		trimmed := bytes.TrimSpace(frame)
		if !bytes.Equal(c.Data, trimmed) {
			t.Fatalf("Data %q, want %q", c.Data, trimmed)
		}
		if c.ValidUTF8 != utf8.Valid(frame) {
			t.Fatalf("ValidUTF8 %v for %q", c.ValidUTF8, frame)
		}
		var v any
		err := json.Unmarshal(trimmed, &v)
		var want Kind
		switch v.(type) {
		case map[string]any:
			want = Object
		case []any:
			want = Batch
		default:
			want = NotObject
		}
		switch {
		case len(trimmed) == 0:
			want = Empty
		case err != nil:
			want = NotJSON
			if c.Reason != err.Error() {
				t.Fatalf("Reason %q, want the decoder's %q", c.Reason, err)
			}
		}
		if c.Kind != want {
			t.Fatalf("Classify(%q) = %v, want %v", frame, c.Kind, want)
		}
	})
}
