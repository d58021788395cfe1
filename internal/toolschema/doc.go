// Package toolschema checks a tool call's arguments against the tool's parameter schema, as
// pi does before a tool runs (pi-behaviour §2.5 and §9.6): the arguments are coerced the way
// AJV's coerceTypes does (coerce.go: no Go library does AJV's coercion), then validated by
// google/jsonschema-go, the one validator for every schema, built-in or MCP. A failure is
// reported in pi's format, one line per failing place (report.go says how the lines come
// from the library, which stops at the first failure):
//
//	Validation failed for tool "<name>":
//	  - <path>: <message>
//
//	Received arguments:
//	<the arguments, indented>
//
// The lines for the keywords pi's own tools use (type, properties, required,
// additionalProperties, items, enum, const, the length, count and range bounds) are the ones
// pi-rpc gave before; other keywords get the library's message at the place that failed.
//
// Cost, measured with BenchmarkValidate (the edit tool's schema, two edits) against the
// own subset validator it replaced, interleaved on the same busy 2-core machine, 5000 calls,
// three rounds: 49-80 µs per call (before: 19-36 µs), 98 allocations and 4.5 KB (before: 14
// and 1.6 KB); the library validates through reflection. That is once per tool call, whose
// own work takes milliseconds, so it does not outweigh having one validator; a failure's
// report, which asks the library once per place, runs only on a failure.
package toolschema
