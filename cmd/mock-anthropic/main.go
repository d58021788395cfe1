// Command mock-anthropic serves a scripted Anthropic Messages endpoint on loopback, for the
// demo, benchmarks and manual checks: the sibling of cmd/mock-openai on Anthropic's wire. The
// script format is documented in package internal/mockanthropic and docs/testing.md; scripts
// that use only the fields both mocks share (text, chunkSize, toolCalls and the faults) play
// on either. `mock-anthropic --help` summarises it.
//
//	mock-anthropic --script turns.json [--addr 127.0.0.1:0]
//
// It prints its base URL (for ANTHROPIC_BASE_URL or --base-url; requests go to /v1/messages)
// as the first and only line on stdout and logs to stderr. It stops on SIGTERM or SIGINT and,
// when its stdin is a pipe, when that pipe reaches EOF, so a parent process that dies takes it
// along; any other stdin (/dev/null, a terminal, a file) is not read.
package main

import (
	"os"

	"github.com/pi-rpc/pi-rpc/internal/mockanthropic"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

func main() {
	os.Exit(command.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

var command = mockhttp.Command{
	Name: "mock-anthropic", Usage: usageText, Format: formatText,
	Load: mockhttp.Loader(mockanthropic.LoadScript, mockanthropic.NewHandler),
}

const usageText = `mock-anthropic serves a scripted Anthropic Messages endpoint on loopback.

Usage:
  mock-anthropic --script FILE [--addr 127.0.0.1:0]

It prints its base URL on stdout (requests go to URL/v1/messages), then serves until SIGTERM
or SIGINT, or until its stdin reaches EOF when stdin is a pipe (a dying parent takes it along;
/dev/null and terminals are not read). Give pi-rpc the URL:
pi-rpc --provider anthropic --base-url URL (no key needed).

Flags:
`

const formatText = `
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
    "keepAlive": "...", "chunkDelayMs": 10, "dropAfter": 3, "stallAfter": 2,
    "stallBeforeHeaders": true, "noDone": true
    "status": 529, "error": {"type": "overloaded_error", "message": "..."}, "retryAfter": "2",
    "headers": {"X-Request-Id": "r1"}, "body": "...", "contentType": "text/html"
  Unknown fields are an error naming the line.
`
