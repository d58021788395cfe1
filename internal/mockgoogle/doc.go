// Package mockgoogle is the Gemini API dialect of the scripted provider mock
// (internal/mockhttp; `mock-openai --dialect google`), for tests, the demo and benchmarks.
// It listens on loopback only,
// answers POST .../models/{model}:streamGenerateContent?alt=sse with the next response of its
// script, streams exactly as Gemini does, can inject every fault a real endpoint shows, and
// records each request so tests can check what a client sent.
//
// # Streaming
//
// A scripted success streams server-sent events, one "data: <json>\r\n\r\n" per chunk, each
// chunk a GenerateContentResponse with one part:
//
//	data: {"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9},"modelVersion":"gemini-2.5-flash","responseId":"mock-response-1"}
//
// Thought summaries are parts with "thought": true; function calls are parts
// {"functionCall":{"name":...,"args":{...}}} (with "id" only when scripted, as Gemini sends
// none); a part's "thoughtSignature" is the scripted signature, verbatim. The last chunk
// carries the candidate's "finishReason" and the full usageMetadata (promptTokenCount,
// candidatesTokenCount, thoughtsTokenCount, cachedContentTokenCount, totalTokenCount).
//
// # Script format
//
// The format is internal/mockopenai's where the concepts are the same (a script with text,
// chunkSize, toolCalls and the fault fields plays on every mock); the Gemini-only fields are
// marked. Each request takes the next response; an exhausted queue answers 500 with Google's
// error body. Every field is optional:
//
//	{"responses": [
//	  {
//	    "model": "gemini-2.5-flash",  // modelVersion; default: the model in the request's path
//	    "id": "resp_1",               // responseId; default: mock-response-N
//
//	    "reasoning": "Let me think",  // thought parts ("thought": true), in fragments
//	    "text": "Hello there",        // then text parts
//	    "chunkSize": 4,               // characters per fragment (default 4)
//	    "toolCalls": [{"name": "bash", "arguments": "{\"command\":\"ls\"}", "id": "", "signature": ""}],
//	    "signature": "CiQB0e2Kb...",  // Gemini: thoughtSignature on the first call, else on the last part
//	    "finishReason": "STOP",       // Gemini: default STOP (also with calls, as Gemini sends it)
//	    "usage": {"promptTokenCount": 10, "candidatesTokenCount": 5, "thoughtsTokenCount": 3, "cachedContentTokenCount": 2},
//
//	    "events": [                   // instead of the shorthand: explicit steps, one chunk each
//	      {"text": "Hel", "signature": "..."},   // a text part (with its thoughtSignature)
//	      {"reasoning": "hmm"},                  // a thought part
//	      {"signature": "..."},                  // an empty text part carrying only a signature
//	      {"toolCall": {"name": "bash", "arguments": "{}", "signature": "..."}},
//	      {"error": {"code": 503, "status": "UNAVAILABLE", "message": "..."}}, // data: {"error":{...}}
//	      {"comment": "keep-alive"},  // an SSE comment line ": keep-alive"
//	      {"raw": "data: {not json\r\n\r\n"}, // bytes written verbatim
//	      {"delayMs": 50}             // a pause
//	    ],
//	    "sse": "data: {...}\r\n\r\n", // or: replay a captured stream verbatim
//	    "sseFile": "fixtures/gemini.sse", // ... read from a file (relative to the script)
//
//	    "keepAlive": "keep-alive",    // a comment line before the first chunk
//	    "chunkDelayMs": 10,           // pause before every chunk
//	    "chunkIntervalUs": 1000,      // a steady rate: data chunk k no earlier than k × 1 ms after the first
//	    "dropAfter": 3,               // after 3 chunks, close the connection mid-stream
//	    "stallAfter": 2,              // after 2 chunks, send nothing until the client goes away or Release
//	    "stallBeforeHeaders": true,   // send nothing at all until the client goes away or Release
//	    "noDone": true,               // no finishReason on the last chunk
//
//	    "status": 429,                // an HTTP error; with "error" the body is Google's error envelope
//	    "error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "...",
//	              "retryDelay": "2s",  // Gemini: a google.rpc.RetryInfo detail
//	              "reason": "API_KEY_INVALID"}, // Gemini: a google.rpc.ErrorInfo detail
//	    "retryAfter": "2",            // Retry-After header (seconds or HTTP date)
//	    "headers": {"X-Request-Id": "r1"},
//	    "body": "<html>Bad gateway</html>", // a raw body (with "contentType") instead of a stream
//	    "contentType": "text/html"
//	  }
//	]}
//
// [RateLimitError], [OverloadedError], [PromptTooLongError] and [AuthError] build the standard
// fault responses. Requests other than POST .../models/{model}:streamGenerateContent get 404,
// and the same without ?alt=sse 400.
//
// # Recording
//
// [Server.Requests] returns every request: its path (the model is in it: [ModelOf]), raw body
// bytes, the decoded body, headers, and two channels: Gone, closed when the server saw the
// client go away before the response was complete, and Done, closed when the handler
// returned. [Server.WritesBlocked] reports whether any single chunk write took longer than
// Server.BlockThreshold (default 200 ms).
package mockgoogle
