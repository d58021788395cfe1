// Package mockopenai is the OpenAI dialect of the scripted provider mock (internal/mockhttp;
// cmd/mock-openai serves it by default): a scripted OpenAI-compatible Chat Completions (and
// Responses API) server for tests, the demo and benchmarks. It listens on loopback only, answers POST .../chat/completions with
// the next response of its script, streams exactly as OpenAI does, can inject every fault a
// real endpoint shows, and records each request so tests can check what a client sent.
//
// # Streaming
//
// A scripted success streams what OpenAI sends for stream:true, one SSE event per chunk:
//
//	data: {"id":"chatcmpl-mock-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}
//
// first the role delta, then reasoning deltas (under the scripted field name), content
// deltas, tool calls (a first delta with index, id, type "function", the name and empty
// arguments, then argument fragments carrying only the index, optionally interleaved between
// parallel calls), a chunk with an empty delta and the finish_reason, the usage chunk with
// "choices":[] when the request set stream_options.include_usage (then every other chunk
// carries "usage":null, as OpenAI's do), and finally "data: [DONE]".
//
// # Script format
//
// docs/testing.md describes the format for users, with examples a test keeps valid;
// `mock-openai --help` (cmd/mock-openai) prints a summary. A script is a JSON object with a
// queue of responses; each request to .../chat/completions takes the next one (an exhausted queue answers 500 with an OpenAI error body). Every field
// is optional:
//
//	{"responses": [
//	  {
//	    "model": "gpt-4.1",           // chunk "model"; default: the request's model
//	    "id": "chatcmpl-1",           // chunk "id"; default: chatcmpl-mock-N
//	    "created": 1700000000,        // chunk "created"; default: 1700000000
//
//	    "reasoning": "Let me think",  // streamed first, as reasoning deltas
//	    "reasoningField": "reasoning_content", // or "reasoning", "reasoning_text" (default reasoning_content)
//	    "text": "Hello there",        // then as content deltas
//	    "chunkSize": 4,               // characters per text/reasoning/argument delta (default 4)
//	    "toolCalls": [{"id": "call_1", "name": "bash", "arguments": "{\"command\":\"ls\"}"}],
//	    "interleave": true,           // alternate argument fragments between parallel calls
//	    "finishReason": "stop",       // default "tool_calls" when toolCalls are scripted, else "stop"
//	    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "cached_tokens": 2, "reasoning_tokens": 0},
//
//	    "events": [                   // instead of reasoning/text/toolCalls: explicit steps
//	      {"text": "Hel"},
//	      {"reasoning": "hmm"},
//	      {"toolCall": {"index": 0, "id": "call_1", "name": "bash"}},
//	      {"args": {"index": 0, "fragment": "{\"command\""}},
//	      {"comment": "OPENROUTER PROCESSING"},    // an SSE comment line ": OPENROUTER PROCESSING"
//	      {"raw": "data: {not json\n\n"},          // bytes written verbatim (malformed lines)
//	      {"delayMs": 50}                          // a pause
//	    ],
//	    "sse": "data: {...}\n\ndata: [DONE]\n\n",  // or: replay a captured stream verbatim
//	    "sseFile": "fixtures/openrouter.sse",      // ... read from a file (relative to the script)
//
//	    "keepAlive": "OPENROUTER PROCESSING",      // a comment line before the first chunk
//	    "chunkDelayMs": 10,           // pause before every chunk
//	    "chunkIntervalUs": 1000,      // a steady rate: data chunk k no earlier than k × 1 ms after the first
//	    "dropAfter": 3,               // after 3 data chunks, close the connection mid-stream
//	    "stallAfter": 2,              // after 2 data chunks, send nothing until the client goes away or Release
//	    "stallBeforeHeaders": true,   // send nothing at all until the client goes away or Release
//	    "noDone": true,               // omit "data: [DONE]"
//
//	    "status": 429,                // an HTTP error; with "error" the body is OpenAI's error envelope
//	    "error": {"message": "Rate limit reached", "type": "requests", "param": null, "code": "rate_limit_exceeded"},
//	    "retryAfter": "2",            // Retry-After header (seconds or HTTP date)
//	    "headers": {"X-Request-Id": "req_1"},
//	    "body": "<html>Bad gateway</html>", // a raw body (with "contentType") instead of a stream
//	    "contentType": "text/html"
//	  }
//	]}
//
// [ContextLengthError] and [RateLimitError] build the standard fault responses.
//
// # Recording
//
// [Server.Requests] returns every request: raw body bytes, the decoded body, headers, and two
// channels: Gone, closed when the server saw the client go away (its request context ended, or
// a write failed) before the response was complete, and Done, closed when the handler
// returned. [Server.WritesBlocked] reports whether any single chunk write (Write plus Flush)
// took longer than Server.BlockThreshold (default 200 ms). On loopback a write only takes that
// long when the socket buffers are full, that is when the client has stopped reading: this is
// how backpressure tests observe that a slow consumer reached the HTTP stream.
package mockopenai
