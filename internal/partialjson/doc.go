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
// Cost, measured with BenchmarkPartialJSONStream (a 10 KB write call in 16-byte fragments,
// Value after each) and core's BenchmarkBuilderToolCallArgs, interleaved with the old parser
// on the same 2-core machine, 300 calls each, two rounds: 2.2-4.6 µs per fragment (old:
// 0.5-2.0 µs), 2.7 allocations and 400 B per fragment (old: 1.1 and 143 B); through
// MessageBuilder 5.1-5.9 µs (old: 0.8 µs). The extra microseconds go to jsontext checking
// the open string's new bytes (jsontext.Value.IsValid) and, when a fragment ends inside an
// escape, to the decoder reading the open string again to check the bytes cut off. At a
// model's pace (a fragment every few milliseconds) this is below a thousandth of the time
// between fragments; the issue accepts it stated here.
package partialjson
