package session

import "github.com/go-json-experiment/json/jsontext"

// validJSON reports whether b is one valid JSON value with optional surrounding whitespace,
// exactly as json.Valid does: the same grammar, no UTF-8 check, duplicate names allowed,
// nesting at most 10,000 deep (jsontext's default depth limit is encoding/json's).
//
// Why jsontext (github.com/go-json-experiment/json), as for the head scanner that opens a
// large session (session/jsonl_head.go, which calls this only to tell a badly shaped head
// from a line that is not JSON): json.Valid's scanner (a function call per byte) was most of
// an open's time; jsontext validates in one tight pass, allocation-free (its decoders are
// pooled), and stops at the depth limit, so a corrupt line of ten million '[' is a clear
// "invalid JSON", never a stack overflow. gjson.Valid recurses once per nesting level without
// a limit, which on such a line exhausts the goroutine stack and kills the process
// (TestValidJSONSurvivesDeepNesting), and accepts lines deeper than json.Valid does.
func validJSON(b []byte) bool {
	return jsontext.Value(b).IsValid(validOptions...)
}

// validOptions make jsontext's grammar json.Valid's: encoding/json checks neither UTF-8
// (its Unmarshal replaces what is invalid with U+FFFD) nor duplicate names.
var validOptions = []jsontext.Options{
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
}
