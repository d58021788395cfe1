// Package faux is a scripted model: a [core.Provider] that answers each call with the next
// step of a queue instead of asking a real model. The agent's tests use it to drive every
// loop rule deterministically, and `pi-rpc --provider faux --faux-script FILE` uses it to run
// offline (the demo, end-to-end tests). It ports pi's faux provider (pi-ai's providers/faux.ts).
//
// # Steps
//
// A [Step] is a scripted response (content blocks, a stop reason, an error message, optional
// usage) or a factory that builds one from the request it answers. Each call to Stream takes
// the next step; with none left the stream fails with [QueueEmptyMessage], pi's exact text.
// [Provider.Requests] keeps a copy of every request, so a test can assert what the model saw.
//
//	p := faux.New()
//	p.SetResponses(
//		faux.Reply(faux.ToolCall("read", map[string]any{"path": "README.md"})),
//		faux.Reply(faux.Thinking("The file is short."), faux.Text("It says hello.")),
//	)
//
// # Streaming
//
// A step streams as pi's does: start; then, block by block, the block's start event, its
// deltas and its end event; then done, or error when the stop reason is error or aborted. All
// events are built by [core.MessageBuilder]. Text and thinking are cut into deltas; a tool
// call streams the compact JSON of its arguments (keys sorted, no HTML escaping) as argument
// fragments. A tool call without an id gets the provider's next id: call_1, call_2, ...
//
// Deltas are deterministic. By default each is 3 to 5 "tokens" of 4 runes, as in pi, with the
// size drawn from a PCG generator seeded with [WithSeed] (default 0) and the call index, so a
// script streams the same deltas on every run. [WithChunkSize] or Step.ChunkSize fixes the
// size instead (1 means one rune per delta), and Block.Deltas streams deltas exactly as given.
//
// Cancelling the context ends the stream at the next chunk boundary with an error event whose
// message has stop reason aborted, errorMessage "Request was aborted" and the content streamed
// so far. There is a boundary before every delta (boundary 0 comes right after start) and one
// before the terminal event. Step.BeforeChunk runs at each boundary, so a test can block
// there, abort the agent, and know exactly where the stream stopped; Step.Hang makes the model
// stop at a boundary until it is cancelled. [WithDelay] paces deltas for the demo through an
// injectable sleep ([WithSleep]).
//
// Usage is pi's estimate: ceil(chars/4) of the serialized context as input and of the content
// as output (chars in UTF-16 units, as JavaScript counts them), with cache reads and writes
// simulated per session id; Step.Usage replaces it. Either way cost comes from the model.
//
// # Script files
//
// [LoadScript] reads a JSON script. Unknown fields are errors, and every error names the file,
// the line and the field, because scripts are written by hand. Example:
//
//	{
//	  "model": {"id": "faux-1", "contextWindow": 32000},
//	  "chunkSize": 8,
//	  "delayMs": 20,
//	  "responses": [
//	    {"content": [
//	      {"type": "thinking", "thinking": "The user wants the README."},
//	      {"type": "text", "text": "Let me read it."},
//	      {"type": "toolCall", "name": "read", "arguments": {"path": "README.md"}}
//	    ]},
//	    {"content": [{"type": "text", "text": "It says hello."}], "stopReason": "stop",
//	     "usage": {"input": 120, "output": 5}},
//	    {"stopReason": "error", "errorMessage": "overloaded", "errorKind": "retryable",
//	     "retryAfterMs": 1000},
//	    {"content": [{"type": "text", "deltas": ["Thinking", " very", " slowly"]}],
//	     "hangAfter": 2}
//	  ]
//	}
//
// Top level (every field optional):
//
//   - model: fields of [core.Model] in pi's JSON shape (id, name, api, provider, reasoning,
//     input, cost, contextWindow, maxTokens, ...), each replacing the default model's
//     ([DefaultModel]: faux-1, api and provider "faux", free, 128000-token window).
//   - chunkSize: runes per delta for every response; 0 (the default) uses pi's 3 to 5 tokens.
//   - seed: seed of the chunk-size generator (default 0).
//   - delayMs: pause before each delta, for a demo that looks like a model typing.
//   - responses: the queue, one object per model call, in order.
//
// A response:
//
//   - content: blocks, streamed in order. {"type":"text","text":...};
//     {"type":"thinking","thinking":...,"signature":...}; {"type":"toolCall","id":...,
//     "name":...,"arguments":{...}} (name required, id defaults to call_N, arguments to {}).
//     Any block may give "deltas": [...] instead of its text or arguments, streamed exactly as
//     given (for a tool call, raw argument fragments, which need not be valid JSON).
//   - stopReason: stop, length, toolUse, error or aborted. Default: toolUse when content has a
//     tool call, else stop.
//   - errorMessage: the message of an error or aborted response (only with those).
//   - errorKind: retryable, overflow, auth, aborted or other, the classification the session's
//     retry policy reads (only with error). Without it the session matches errorMessage.
//   - retryAfterMs: the server's Retry-After (only with error).
//   - usage: {"input","output","cacheRead","cacheWrite"} tokens, replacing the estimate.
//   - responseId: the message's responseId.
//   - chunkSize, delayMs: this response's delta size and pacing.
//   - hangAfter: after this many deltas, wait until the request is cancelled (an abort or a
//     shutdown), then end as aborted: a model that never finishes on its own.
package faux
