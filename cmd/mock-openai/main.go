// Command mock-openai serves a scripted LLM provider endpoint on loopback, for tests, the
// demo, benchmarks and manual checks: OpenAI's Chat Completions and Responses API by
// default, Anthropic's Messages API with --dialect anthropic, Gemini's
// streamGenerateContent with --dialect google. The script format is documented in
// docs/testing.md and packages internal/mockopenai, internal/mockanthropic and
// internal/mockgoogle; scripts that use only the fields the dialects share (text,
// chunkSize, toolCalls and the faults) play on any of them. `mock-openai [--dialect D]
// --help` summarises the dialect's format.
//
//	mock-openai [--dialect openai|anthropic|google] --script turns.json [--addr 127.0.0.1:0]
//
// It prints its base URL as the first and only line on stdout (ending in /v1 for OpenAI, the
// server root for Anthropic, whose clients add /v1, and ending in /v1beta for Gemini) and
// logs to stderr. It stops on SIGTERM or SIGINT and, when its stdin is a pipe, when that
// pipe reaches EOF, so a parent process that dies takes it along. Any other stdin
// (/dev/null, a terminal, a file) is not read, so `mock-openai --script s.json </dev/null &`
// keeps serving.
package main

import (
	"os"

	"github.com/pi-rpc/pi-rpc/internal/mockanthropic"
	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

func main() {
	os.Exit(command.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

var command = mockhttp.Command{
	Name: "mock-openai", Usage: usageText,
	Dialects: []mockhttp.CommandDialect{
		{Name: "openai", Format: openaiFormat, Load: mockhttp.Loader(mockopenai.LoadScript, mockopenai.NewHandler)},
		{Name: "anthropic", Format: anthropicFormat, Load: mockhttp.Loader(mockanthropic.LoadScript, mockanthropic.NewHandler)},
		{Name: "google", Format: googleFormat, Load: mockhttp.Loader(mockgoogle.LoadScript, mockgoogle.NewHandler)},
	},
}
