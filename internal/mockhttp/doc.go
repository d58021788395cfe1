// Package mockhttp is the scripted provider mock's server; each provider's wire is a
// [Dialect] of it: internal/mockopenai (Chat Completions and the Responses API),
// internal/mockanthropic (Messages) and internal/mockgoogle (Gemini's
// streamGenerateContent). It holds what the dialects share: the [Server], which routes a
// request to the dialect's player with the next scripted response, the queue of responses
// and the record of requests ([Recorder]), the fields every response has ([Faults]: a
// replayed capture, pacing, stalls, drops, HTTP answers), the streaming writer that applies
// them ([Stream], with blocked-write detection), the script and its file helpers ([Script],
// [LoadScript]), and the one mock command's line and serve loop ([Command], cmd/mock-openai,
// whose --dialect picks the wire). A dialect keeps only what is its provider's: the
// script's content fields, the wire format of its stream, and its error body.
//
// Each dialect's Response embeds Faults, so a script's JSON has the fault fields at the
// response's top level, and Go code sets them as Faults: mockhttp.Faults{StallAfter: 2}.
package mockhttp
