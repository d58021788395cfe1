// Command mock-google serves a scripted Gemini API endpoint on loopback, for the demo,
// benchmarks and manual checks: the sibling of cmd/mock-openai and cmd/mock-anthropic on
// Gemini's wire (streamGenerateContent?alt=sse). The script format is documented in package
// internal/mockgoogle and docs/testing.md; scripts that use only the fields the mocks share
// (text, chunkSize, toolCalls and the faults) play on any of them. `mock-google --help`
// summarises it.
//
//	mock-google --script turns.json [--addr 127.0.0.1:0]
//
// It prints its base URL with the API version (for a models.json baseUrl or --base-url;
// requests go to URL/models/{model}:streamGenerateContent?alt=sse) as the first and only line
// on stdout and logs to stderr. It stops on SIGTERM or SIGINT and, when its stdin is a pipe,
// when that pipe reaches EOF; any other stdin is not read.
package main

import (
	"os"

	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

func main() {
	os.Exit(command.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

var command = mockhttp.Command{
	Name: "mock-google", Usage: usageText, Format: formatText, URLSuffix: "/v1beta",
	Load: mockhttp.Loader(mockgoogle.LoadScript, mockgoogle.NewHandler),
}

const usageText = `mock-google serves a scripted Gemini API endpoint on loopback.

Usage:
  mock-google --script FILE [--addr 127.0.0.1:0]

It prints its base URL on stdout, with the API version (requests go to
URL/models/MODEL:streamGenerateContent?alt=sse), then serves until SIGTERM or SIGINT, or until
its stdin reaches EOF when stdin is a pipe (a dying parent takes it along; /dev/null and
terminals are not read). Give pi-rpc the URL:
pi-rpc --provider google --base-url URL (no key needed).

Flags:
`

const formatText = `
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
    "keepAlive": "...", "chunkDelayMs": 10, "dropAfter": 3, "stallAfter": 2,
    "stallBeforeHeaders": true, "noDone": true
    "status": 429, "error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "...", "retryDelay": "2s"},
    "retryAfter": "2", "headers": {"X-Request-Id": "r1"}, "body": "...", "contentType": "text/html"
  Unknown fields are an error naming the line.
`
