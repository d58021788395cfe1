// Package partialjson reads tool-call arguments as a model streams them: a JSON object that
// may be cut off anywhere, parsed as far as it goes after every fragment (pi's partial tool
// arguments in toolcall_delta and the partial message; see docs/protocol.md). [Parse] reads a
// whole prefix at once; [Parser] reads the fragments as they come.
//
// The grammar is jsontext's: its Decoder tokenizes the fragments (see [Parser] for how it is
// made to wait for the next one) and encoding/json reads complete text. The one pass of our
// own over JSON text is [repairJSON] (repair.go, the one exception internal/archtest lets
// through), pi's repair of the raw control characters and invalid
// escapes some models write, which no JSON library does: they refuse such text.
//
// Where it differs from the hand-written parser it replaced (TestAgreesWithTheOldParser checks
// every other input of the tests and the fuzz corpus, and every prefix of each): the text
// follows JSON's grammar ("01", "1.e5" and a comma before '}' or ']' end the parse, as they
// do for encoding/json once the text is complete); a \u escape with a non-hex byte is repaired as soon as it is seen; and
// invalid UTF-8 inside a string cut off shows as U+FFFD (the same on the wire, and fragments
// decoded from a provider's JSON events are valid UTF-8 anyway).
//
// Cost, measured interleaved with the old parser on the same busy 2-core machine (other
// builds running; the spread is the machine's): BenchmarkPartialJSONStream (a 10 KB write
// call in 16-byte fragments, Value after each), 1000 calls, three rounds: 2.1-3.4 µs per
// fragment (old: 1.6-2.3 µs), 2.8 allocations and 403 B per fragment (old: 1.1 and 143 B).
// llm/openai's BenchmarkStream/toolargs, 2000 streams: 215 µs per chunk (old: 222-238 µs),
// the parser's share lost in the rest of the path. The extra allocations are the open
// string's decoded bytes (jsontext.AppendUnquote per fragment) and, when a fragment ends
// inside a multi-byte character, the shown string's copy. The decoder reads an open string
// again only when a quote that may end it arrives, so a fragment costs what its own bytes
// cost, however long the string.
package partialjson
