package main

const usageText = `mock-openai serves a scripted LLM provider endpoint on loopback: OpenAI's Chat
Completions and Responses API (--dialect openai, the default), Anthropic's Messages API
(--dialect anthropic) or Gemini's streamGenerateContent (--dialect google).

Usage:
  mock-openai [--dialect openai|anthropic|google] --script FILE [--addr 127.0.0.1:0]

It prints its base URL on stdout, then serves until SIGTERM or SIGINT, or until its stdin
reaches EOF when stdin is a pipe (a dying parent takes it along; /dev/null and terminals are
not read). Give pi-rpc the URL (no key needed):
  openai     the URL ends in /v1:          pi-rpc --base-url URL
  anthropic  the server root (clients add /v1/messages):
                                           pi-rpc --provider anthropic --base-url URL
  google     the URL ends in /v1beta (requests go to URL/models/MODEL:streamGenerateContent?alt=sse):
                                           pi-rpc --provider google --base-url URL
--help after --dialect D prints D's script format.

Flags:
`

const openaiFormat = `
Script format (docs/testing.md has complete examples):
  {"responses": [RESPONSE, ...]}   each POST .../chat/completions takes the next one;
                                   with none left the answer is HTTP 500. POST .../responses
                                   takes it too, played as a Responses API stream
                                   (finishReason "length" → response.incomplete,
                                   "failed" → response.failed).
  A RESPONSE (every field optional) streams, in order:
    "reasoning": "...", "reasoningField": "reasoning_content" | "reasoning" | "reasoning_text"
    "text": "..."                  the answer, in deltas of "chunkSize" characters (default 4)
    "toolCalls": [{"id": "call_1", "name": "bash", "arguments": "{\"command\":\"ls\"}"}]
    "interleave": true             alternate argument fragments of parallel calls
    "finishReason": "stop"         default "tool_calls" with toolCalls, else "stop"
    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "cached_tokens": 0, "reasoning_tokens": 0}
    "model", "id", "created"       chunk fields (default: the request's model, chatcmpl-mock-N)
  Instead of reasoning/text/toolCalls:
    "events": [{"text": "..."}, {"reasoning": "..."}, {"toolCall": {"index": 0, "id": "c1", "name": "ls"}},
               {"args": {"index": 0, "fragment": "{}"}}, {"comment": "..."}, {"raw": "..."}, {"delayMs": 50}]
    "sse": "data: ...\n\n"  or  "sseFile": "capture.sse"   replay a stream verbatim
  Faults:
    "keepAlive": "...", "chunkDelayMs": 10, "chunkIntervalUs": 1000, "dropAfter": 3, "stallAfter": 2,
    "stallBeforeHeaders": true, "noDone": true
    "status": 429, "error": {"message": "...", "type": "...", "code": "..."}, "retryAfter": "2",
    "headers": {"X-Request-Id": "r1"}, "body": "...", "contentType": "text/html"
  Unknown fields are an error naming the line.
`

const anthropicFormat = `
Script format (package internal/mockanthropic documents every field):
  {"responses": [RESPONSE, ...]}   each POST .../v1/messages takes the next one;
                                   with none left the answer is HTTP 500.
  A RESPONSE (every field optional) streams, in order:
    "redactedThinking": "..."      a redacted_thinking block
    "reasoning": "...", "signature": "..."   a thinking block ending with its signature
    "text": "..."                  a text block, in deltas of "chunkSize" characters (default 4)
    "toolCalls": [{"id": "toolu_1", "name": "bash", "arguments": "{\"command\":\"ls\"}"}]
    "stopReason": "end_turn"       default "tool_use" with toolCalls, else "end_turn"
    "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    "model", "id"                  message fields (default: the request's model, msg_mock_N)
  Or explicit steps instead of the shorthand:
    "events": [{"text": "..."}, {"reasoning": "..."}, {"signature": "..."}, {"redactedThinking": "..."},
               {"toolCall": {"index": 0, "id": "t1", "name": "ls"}}, {"args": {"index": 0, "fragment": "{}"}},
               {"ping": true}, {"error": {"type": "overloaded_error", "message": "..."}},
               {"comment": "..."}, {"raw": "..."}, {"delayMs": 50}]
    "sse": "event: ...\ndata: ...\n\n"  or  "sseFile": "capture.sse"   replay a stream verbatim
  Faults:
    "keepAlive": "...", "chunkDelayMs": 10, "chunkIntervalUs": 1000, "dropAfter": 3, "stallAfter": 2,
    "stallBeforeHeaders": true, "noDone": true
    "status": 529, "error": {"type": "overloaded_error", "message": "..."}, "retryAfter": "2",
    "headers": {"X-Request-Id": "r1"}, "body": "...", "contentType": "text/html"
  Unknown fields are an error naming the line.
`

const googleFormat = `
Script format (package internal/mockgoogle documents every field):
  {"responses": [RESPONSE, ...]}   each POST .../models/MODEL:streamGenerateContent?alt=sse
                                   takes the next one; with none left the answer is HTTP 500.
  A RESPONSE (every field optional) streams, one part per chunk, in order:
    "reasoning": "..."             thought parts ("thought": true)
    "text": "..."                  text parts, in fragments of "chunkSize" characters (default 4)
    "toolCalls": [{"name": "bash", "arguments": "{\"command\":\"ls\"}", "signature": "..."}]
    "signature": "..."             thoughtSignature on the first call, else on the last part
    "finishReason": "STOP"         on the last chunk (default STOP)
    "usage": {"promptTokenCount": 10, "candidatesTokenCount": 5, "thoughtsTokenCount": 0, "cachedContentTokenCount": 0}
    "model", "id"                  modelVersion and responseId
  Or explicit steps instead of the shorthand:
    "events": [{"text": "...", "signature": "..."}, {"reasoning": "..."}, {"signature": "..."},
               {"toolCall": {"name": "ls", "arguments": "{}", "signature": "..."}},
               {"error": {"code": 503, "status": "UNAVAILABLE", "message": "..."}},
               {"comment": "..."}, {"raw": "..."}, {"delayMs": 50}]
    "sse": "data: ...\r\n\r\n"  or  "sseFile": "capture.sse"   replay a stream verbatim
  Faults:
    "keepAlive": "...", "chunkDelayMs": 10, "chunkIntervalUs": 1000, "dropAfter": 3, "stallAfter": 2,
    "stallBeforeHeaders": true, "noDone": true
    "status": 429, "error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "...", "retryDelay": "2s"},
    "retryAfter": "2", "headers": {"X-Request-Id": "r1"}, "body": "...", "contentType": "text/html"
  Unknown fields are an error naming the line.
`
