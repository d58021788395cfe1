package partialjson

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// oldDiffers lists the inputs on which Parse deliberately differs from the hand-written parser
// it replaced, with the reason; every other input of the tests and the fuzz corpus, and every
// prefix of one, parses as before.
//
//   - the text follows JSON's grammar: the old parser read "01" as 1, "1.e5" as 100000 and
//     "1-" cut off as 1, where JSON (and encoding/json on the whole text) has no number, and
//     let a comma stand before a closing brace or bracket;
//   - a \u escape with a byte that is no hex digit, cut off before its fourth digit, is
//     repaired as it is once the text goes on (the old parser took it as a prefix and showed
//     nothing of it);
//   - invalid UTF-8 in a string cut off shows as U+FFFD, as encoding/json shows it once the
//     text is complete (the old parser kept the raw bytes there; on the wire, where invalid
//     UTF-8 is written as U+FFFD, the two are the same).
func oldDiffers(s string) bool {
	return sameOnTheWire(oldParse(s), Parse(s)) || outsideTheGrammar(s) || outsideTheGrammar(repairJSON(s)) ||
		badUnicodeEscape.MatchString(s)
}

// badUnicodeEscape finds a \u escape with a byte that is not a hex digit.
var badUnicodeEscape = regexp.MustCompile(`\\u[0-9A-Fa-f]{0,3}[^0-9A-Fa-f]`)

// sameOnTheWire reports whether a and b encode to JSON that decodes to the same value.
func sameOnTheWire(a, b map[string]any) bool {
	roundTrip := func(v any) any {
		data, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		var out any
		if err := json.Unmarshal(data, &out); err != nil {
			panic(err)
		}
		return out
	}
	return reflect.DeepEqual(roundTrip(a), roundTrip(b))
}

// outsideTheGrammar reports whether jsontext stops reading s at (or just after) a
// number's byte or at a comma before a closing brace or bracket: the grammar the old parser
// did not hold to.
func outsideTheGrammar(s string) bool {
	dec := jsontext.NewDecoder(strings.NewReader(s), decodeOptions...)
	for {
		_, err := dec.ReadToken()
		var serr *jsontext.SyntacticError
		if err == nil {
			continue
		}
		if !errors.As(err, &serr) {
			return false
		}
		at := int(serr.ByteOffset)
		return at > 0 && at <= len(s) && strings.IndexByte("0123456789.eE+-", s[at-1]) >= 0 ||
			at < len(s) && strings.IndexByte("0123456789.eE+-,]}", s[at]) >= 0
	}
}

// corpusInputs are the string arguments of the fuzz corpus.
func corpusInputs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/fuzz/*/*")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "string("); ok {
				s, err := strconv.Unquote(strings.TrimSuffix(rest, ")"))
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no fuzz corpus")
	}
	return out
}

// TestAgreesWithTheOldParser compares Parse with the hand-written parser it replaced on every
// input of the tests and the fuzz corpus, and on every prefix of each.
func TestAgreesWithTheOldParser(t *testing.T) {
	inputs := append(append(append([]string{}, streamDocs...), invalidDocs...), corpusInputs(t)...)
	inputs = append(inputs, `{"path":"src/main.go","edits":[{"oldText":"a\"b\\n","newText":"ü 🙂"}],"n":12.5e1,"ok":false,"z":null}`)
	same, differ := 0, 0
	for _, doc := range inputs {
		for i := 0; i <= len(doc); i++ {
			s := doc[:i]
			if reflect.DeepEqual(Parse(s), oldParse(s)) {
				same++
				continue
			}
			if !oldDiffers(s) {
				t.Errorf("Parse(%q) = %#v, the old parser gave %#v", s, Parse(s), oldParse(s))
			}
			differ++
		}
	}
	t.Logf("%d inputs as before, %d deliberately different", same, differ)
}

// FuzzAgreesWithTheOldParser compares Parse with the old parser on any text.
func FuzzAgreesWithTheOldParser(f *testing.F) {
	for _, doc := range append(append([]string{}, streamDocs...), invalidDocs...) {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, old := Parse(s), oldParse(s); !reflect.DeepEqual(got, old) && !oldDiffers(s) {
			t.Fatalf("Parse(%q) = %#v, the old parser gave %#v", s, got, old)
		}
	})
}
