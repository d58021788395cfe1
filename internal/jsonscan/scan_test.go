package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// spaceCases: an input, where Space starts and where it should stop.
var spaceCases = []struct {
	in       string
	from, to int
}{
	{"", 0, 0}, {"x", 0, 0}, {" \t\r\nx", 0, 4}, {"   ", 0, 3}, {"a  b", 1, 3}, {"\v", 0, 0}, {"\u00a0", 0, 0},
}

func TestSpace(t *testing.T) {
	for _, c := range spaceCases {
		if got := Space([]byte(c.in), c.from); got != c.to {
			t.Errorf("Space(%q, %d) = %d, want %d", c.in, c.from, got, c.to)
		}
	}
}

func TestLiteral(t *testing.T) {
	for _, c := range []struct {
		in, word string
		i, end   int
		ok       bool
	}{
		{"null", "null", 0, 4, true}, {"nul", "null", 0, 0, false}, {"[true]", "true", 1, 5, true},
		{"false,", "false", 0, 5, true}, {"fals", "false", 0, 0, false}, {"nulL", "null", 0, 0, false},
		{"x", "true", 1, 1, false},
	} {
		end, ok := Literal([]byte(c.in), c.i, c.word)
		if end != c.end || ok != c.ok {
			t.Errorf("Literal(%q, %d, %q) = %d, %v; want %d, %v", c.in, c.i, c.word, end, ok, c.end, c.ok)
		}
	}
}

var numberCases = []struct {
	in  string
	end int
	ok  bool
}{
	{"0", 1, true}, {"-0", 2, true}, {"01", 1, true}, {"-", 0, false}, {"", 0, false}, {"1.", 0, false},
	{"1.5", 3, true}, {".5", 0, false}, {"1e5", 3, true}, {"1E+5", 4, true}, {"1e", 0, false}, {"1e+", 0, false},
	{"-1.5e-3,", 7, true}, {"+1", 0, false}, {"123456789012345678901234567890", 30, true}, {"-a", 0, false},
	{"0.0e0}", 5, true}, {"1.e5", 0, false}, {"12x", 2, true}, {"--1", 0, false},
}

func TestNumber(t *testing.T) {
	for _, c := range numberCases {
		end, ok := Number([]byte(c.in), 0)
		if end != c.end || ok != c.ok {
			t.Errorf("Number(%q) = %d, %v; want %d, %v", c.in, end, ok, c.end, c.ok)
		}
	}
	if end, ok := Number([]byte(`[12]`), 1); end != 3 || !ok {
		t.Errorf("Number at 1 = %d, %v; want 3, true", end, ok)
	}
}

var stringCases = []struct {
	in    string
	end   int
	flags StringFlags
	ok    bool
}{
	{`""`, 2, 0, true}, {`"a"`, 3, 0, true}, {`"a`, 0, 0, false}, {`a"`, 0, 0, false}, {``, 0, 0, false},
	{`"\""`, 4, Escaped, true}, {`"\"`, 0, 0, false}, {`"\\"`, 4, Escaped, true}, {`"\/"`, 4, Escaped, true},
	{`"\b\f\n\r\t"x`, 12, Escaped, true}, {`"\q"`, 0, 0, false}, {`"\u00e9"`, 8, Escaped, true},
	{`"\u00E9"`, 8, Escaped, true}, {`"\u12G4"`, 0, 0, false}, {`"\u12"`, 0, 0, false}, {`"\u`, 0, 0, false},
	{"\"a\x01b\"", 0, 0, false}, {"\"tab\t\"", 0, 0, false}, {"\"\x7f\"", 3, 0, true},
	{"\"é\"", 4, NonASCII, true}, {"\"\xff\xfe\"", 4, NonASCII, true}, {"\"\\n\xc3\xa9\"", 6, Escaped | NonASCII, true},
	{`"a","b"`, 3, 0, true}, {`"\\\""`, 6, Escaped, true},
}

func TestString(t *testing.T) {
	for _, c := range stringCases {
		end, flags, ok := String([]byte(c.in), 0)
		if end != c.end || flags != c.flags || ok != c.ok {
			t.Errorf("String(%q) = %d, %b, %v; want %d, %b, %v", c.in, end, flags, ok, c.end, c.flags, c.ok)
		}
	}
	if end, _, ok := String([]byte(`{"k":1}`), 1); end != 4 || !ok {
		t.Errorf("String at 1 = %d, %v; want 4, true", end, ok)
	}
}

func TestIsHex(t *testing.T) {
	const hex = "0123456789abcdefABCDEF"
	for c := range 256 {
		if got, want := IsHex(byte(c)), strings.IndexByte(hex, byte(c)) >= 0; got != want {
			t.Errorf("IsHex(%q) = %v", byte(c), got)
		}
	}
}

// FuzzString checks String against json.Valid: a string it takes is a valid JSON string
// token (whose flags say what it holds), and where it takes none, no prefix of the input is
// one.
func FuzzString(f *testing.F) {
	for _, c := range stringCases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		end, flags, ok := String(b, 0)
		if ok {
			if !json.Valid(b[:end]) {
				t.Fatalf("%q: String takes %q, which json.Valid refuses", b, b[:end])
			}
			inner := b[1 : end-1]
			want := StringFlags(0)
			if bytes.IndexByte(inner, '\\') >= 0 {
				want |= Escaped
			}
			if bytes.ContainsFunc(inner, func(r rune) bool { return r >= 0x80 }) {
				want |= NonASCII
			}
			if flags != want {
				t.Fatalf("%q: flags %b, want %b", b, flags, want)
			}
			if end > 1 && bytes.IndexByte(b[1:end-1], '"') >= 0 && !bytes.Contains(b[1:end-1], []byte(`\`)) {
				t.Fatalf("%q: String ends past an unescaped quote", b)
			}
			return
		}
		for k := 2; k <= len(b); k++ {
			if b[0] == '"' && b[k-1] == '"' && json.Valid(b[:k]) {
				t.Fatalf("%q: String refuses it, json.Valid takes %q", b, b[:k])
			}
		}
	})
}

// FuzzNumber checks Number against json.Valid: a number it takes is valid JSON, and an input
// that starts as a number is valid JSON exactly when Number takes all of it but trailing
// whitespace (so it takes the longest number there, and refuses what the scanner refuses).
func FuzzNumber(f *testing.F) {
	for _, c := range numberCases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		end, ok := Number(b, 0)
		if ok && !json.Valid(b[:end]) {
			t.Fatalf("%q: Number takes %q, which json.Valid refuses", b, b[:end])
		}
		if len(b) == 0 || strings.IndexByte("-0123456789", b[0]) < 0 {
			if ok {
				t.Fatalf("%q: Number takes %q", b, b[:end])
			}
			return
		}
		whole := ok && end == len(bytes.TrimRight(b, " \t\r\n"))
		if valid := json.Valid(b); whole != valid {
			t.Fatalf("%q: Number = %d, %v; json.Valid %v", b, end, ok, valid)
		}
	})
}

func TestScalar(t *testing.T) {
	for _, c := range []struct {
		in  string
		end int
		ok  bool
	}{
		{`"a\"b",`, 6, true}, {`"a`, 0, false}, {`true]`, 4, true}, {`tru`, 0, false}, {`false`, 5, true},
		{`null}`, 4, true}, {`nil`, 0, false}, {`-1.5e3,`, 6, true}, {`-`, 0, false}, {``, 0, false},
		{`{}`, 0, false}, {`[]`, 0, false}, {`x`, 0, false},
	} {
		end, ok := Scalar([]byte(c.in), 0)
		if end != c.end || ok != c.ok {
			t.Errorf("Scalar(%q) = %d, %v; want %d, %v", c.in, end, ok, c.end, c.ok)
		}
	}
}
