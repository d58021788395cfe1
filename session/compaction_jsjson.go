package session

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pi-rpc/pi-rpc/internal/jsonstring"
)

// jsJSON renders a decoded JSON value as JavaScript's JSON.stringify does. pi measures tool
// arguments with it (token estimates) and prints them with it (summary requests), and
// encoding/json differs in ways that change both: it escapes <, >, & and U+2028/U+2029, and
// formats numbers differently. Object keys come in JavaScript's order for what can be known:
// array-index keys ascending, then the others; JavaScript keeps the others in insertion order,
// which a Go map has lost, so they are sorted.
func jsJSON(v any) string {
	var b strings.Builder
	writeJS(&b, v)
	return b.String()
}

func writeJS(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		writeJSString(b, v)
	case float64:
		b.WriteString(jsNumber(v))
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			b.WriteString(v.String())
			return
		}
		b.WriteString(jsNumber(f))
	case map[string]any:
		writeJSObject(b, v)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJS(b, e)
		}
		b.WriteByte(']')
	default:
		writeJS(b, normalizeJSON(v))
	}
}

// normalizeJSON turns any other Go value (ints, typed slices and maps, structs) into the
// generic form encoding/json decodes to.
func normalizeJSON(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(data, &out) != nil {
		return nil
	}
	return out
}

func writeJSObject(b *strings.Builder, m map[string]any) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareJSKeys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSString(b, k)
		b.WriteByte(':')
		writeJS(b, m[k])
	}
	b.WriteByte('}')
}

// compareJSKeys orders object keys as JavaScript enumerates them: array indices first,
// numerically; the rest by code units (standing in for insertion order).
func compareJSKeys(a, b string) int {
	ia, aIdx := arrayIndex(a)
	ib, bIdx := arrayIndex(b)
	switch {
	case aIdx && bIdx:
		return cmp.Compare(ia, ib)
	case aIdx:
		return -1
	case bIdx:
		return 1
	}
	return compareUTF16(a, b)
}

// arrayIndex reports whether k is a canonical array index ("0", "17", not "017" or "-1").
func arrayIndex(k string) (int64, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseInt(k, 10, 64)
	if err != nil || n < 0 || n >= math.MaxUint32 {
		return 0, false
	}
	return n, true
}

// writeJSString quotes s as JSON.stringify does: only the quote, the backslash and control
// characters are escaped.
func writeJSString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if r < 0x20 {
				b.WriteString(jsonstring.JSControl(byte(r)))
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// jsNumber formats f as JavaScript's Number#toString: plain digits from 1e-6 up to 1e21,
// exponent notation ("1e+21", "1e-7") outside; NaN and infinities are null in JSON.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "null"
	case f == 0:
		return "0"
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + digits
}

// compareUTF16 compares strings by UTF-16 code units, JavaScript's default sort order. It
// differs from byte order only between supplementary characters and U+E000–U+FFFF.
func compareUTF16(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	for i := 0; i < len(ra) && i < len(rb); i++ {
		if ra[i] == rb[i] {
			continue
		}
		if ua, ub := firstUnit(ra[i]), firstUnit(rb[i]); ua != ub {
			return cmp.Compare(ua, ub)
		}
		return cmp.Compare(ra[i], rb[i]) // same high surrogate: the low ones keep rune order
	}
	return cmp.Compare(len(ra), len(rb))
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}
