// Package mockanthropic is the Anthropic Messages dialect of the scripted provider mock
// (internal/mockhttp; `mock-openai --dialect anthropic`), for tests, the demo and
// benchmarks. It listens on loopback only, answers
// POST /v1/messages with the next response of its script, streams exactly as Anthropic does,
// can inject every fault a real endpoint shows, and records each request so tests can check
// what a client sent.
//
// # Streaming
//
// A scripted success streams Anthropic's event stream, one "event: <type>\ndata: <json>\n\n"
// per event:
//
//	event: message_start
//	data: {"type":"message_start","message":{"id":"msg_mock_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}
//
// then a ping, then content blocks in order, each a content_block_start, its
// content_block_deltas and a content_block_stop: a redacted_thinking block (data in the
// start event), a thinking block (thinking_delta fragments, then one signature_delta), a
// text block (text_delta fragments), and one tool_use block per call (an empty
// input_json_delta, then the input in fragments); finally message_delta with the stop_reason
// and usage.output_tokens, and message_stop.
//
// # Script format
//
// The format is internal/mockopenai's where the concepts are the same (a script written for
// the OpenAI mock with text, chunkSize, toolCalls and the fault fields plays on this one too);
// the Anthropic-only fields are marked. Each request takes the next response; an exhausted
// queue answers 500 with an Anthropic error body. Every field is optional:
//
//	{"responses": [
//	  {
//	    "model": "claude-sonnet-4-5",  // message model; default: the request's model
//	    "id": "msg_1",                 // message id; default: msg_mock_N
//
//	    "redactedThinking": "EmwKAhgBEgy...", // Anthropic: a redacted_thinking block first
//	    "reasoning": "Let me think",  // a thinking block, as thinking_delta fragments
//	    "signature": "EqQBCkYI...",   // Anthropic: its signature (default mock-signature-N)
//	    "text": "Hello there",        // then a text block
//	    "chunkSize": 4,               // characters per text/thinking/input fragment (default 4)
//	    "toolCalls": [{"id": "toolu_1", "name": "bash", "arguments": "{\"command\":\"ls\"}"}],
//	    "stopReason": "end_turn",     // Anthropic: default "tool_use" with toolCalls, else "end_turn"
//	    "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 2, "cache_creation_input_tokens": 3},
//
//	    "events": [                   // instead of the shorthand: explicit steps
//	      {"text": "Hel"},            // a text_delta (starting a text block if needed)
//	      {"reasoning": "hmm"},       // a thinking_delta (starting a thinking block if needed)
//	      {"signature": "EqQB"},      // a signature_delta for the thinking block
//	      {"redactedThinking": "Emw"},// a whole redacted_thinking block
//	      {"toolCall": {"index": 0, "id": "toolu_1", "name": "bash"}},
//	      {"args": {"index": 0, "fragment": "{\"command\""}},
//	      {"ping": true},             // event: ping
//	      {"error": {"type": "overloaded_error", "message": "Overloaded"}}, // an error event
//	      {"comment": "keep-alive"},  // an SSE comment line ": keep-alive"
//	      {"raw": "event: content_block_delta\ndata: {not json\n\n"}, // bytes written verbatim
//	      {"delayMs": 50}             // a pause
//	    ],
//	    "sse": "event: message_start\ndata: {...}\n\n", // or: replay a captured stream verbatim
//	    "sseFile": "fixtures/claude.sse",               // ... read from a file (relative to the script)
//
//	    "keepAlive": "keep-alive",    // a comment line before the first event
//	    "chunkDelayMs": 10,           // pause before every event
//	    "chunkIntervalUs": 1000,      // a steady rate: data event k no earlier than k × 1 ms after the first
//	    "dropAfter": 3,               // after 3 events, close the connection mid-stream
//	    "stallAfter": 2,              // after 2 events, send nothing until the client goes away or Release
//	    "stallBeforeHeaders": true,   // send nothing at all until the client goes away or Release
//	    "noDone": true,               // omit message_stop
//
//	    "status": 429,                // an HTTP error; with "error" the body is Anthropic's error envelope
//	    "error": {"type": "rate_limit_error", "message": "Rate limited"},
//	    "retryAfter": "2",            // retry-after header (seconds or HTTP date)
//	    "headers": {"anthropic-ratelimit-requests-remaining": "0"},
//	    "body": "<html>Bad gateway</html>", // a raw body (with "contentType") instead of a stream
//	    "contentType": "text/html"
//	  }
//	]}
//
// [OverloadedError], [RateLimitError], [PromptTooLongError] and [AuthError] build the
// standard fault responses.
//
// # Recording
//
// [Server.Requests] returns every request: raw body bytes, the decoded body, headers, and two
// channels: Gone, closed when the server saw the client go away (its request context ended, or
// a write failed) before the response was complete, and Done, closed when the handler
// returned. [Server.WritesBlocked] reports whether any single event write (Write plus Flush)
// took longer than Server.BlockThreshold (default 200 ms), which on loopback means the client
// stopped reading.
package mockanthropic
