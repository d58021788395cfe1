// Command mock-openai serves a scripted OpenAI-compatible Chat Completions endpoint (and the
// Responses API, POST .../responses) on loopback, for tests, the demo, benchmarks and manual checks. The script format is
// documented in docs/testing.md and package internal/mockopenai; `mock-openai --help`
// summarises it.
//
//	mock-openai --script turns.json [--addr 127.0.0.1:0]
//
// It prints its base URL (ending in /v1) as the first and only line on stdout and logs to
// stderr. It stops on SIGTERM or SIGINT and, when its stdin is a pipe, when that pipe reaches
// EOF, so a parent process that dies takes it along. Any other stdin (/dev/null, a terminal,
// a file) is not read, so `mock-openai --script s.json </dev/null &` keeps serving.
package main

import (
	"io"
	"os"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usageText = `mock-openai serves a scripted OpenAI-compatible Chat Completions endpoint (and the
Responses API) on loopback.

Usage:
  mock-openai --script FILE [--addr 127.0.0.1:0]

It prints its base URL (ending in /v1) on stdout, then serves until SIGTERM or SIGINT, or
until its stdin reaches EOF when stdin is a pipe (a dying parent takes it along; /dev/null
and terminals are not read). Give pi-rpc the URL: pi-rpc --base-url URL (no key needed).

Flags:
`

const formatText = `
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

var command = mockhttp.Command{
	Name: "mock-openai", Usage: usageText, Format: formatText, URLSuffix: "/v1",
	Load: func(script string) (mockhttp.Mock, error) {
		s, err := mockopenai.LoadScript(script)
		if err != nil {
			return nil, err
		}
		return mockopenai.NewHandler(s), nil
	},
}

func run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	return command.Run(args, stdin, stdout, stderr)
}
