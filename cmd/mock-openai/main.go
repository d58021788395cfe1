// Command mock-openai serves a scripted OpenAI-compatible Chat Completions endpoint on
// loopback, for tests, the demo, benchmarks and manual checks. The script format is
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
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usageText = `mock-openai serves a scripted OpenAI-compatible Chat Completions endpoint on loopback.

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
                                   with none left the answer is HTTP 500.
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
    "keepAlive": "...", "chunkDelayMs": 10, "dropAfter": 3, "stallAfter": 2,
    "stallBeforeHeaders": true, "noDone": true
    "status": 429, "error": {"message": "...", "type": "...", "code": "..."}, "retryAfter": "2",
    "headers": {"X-Request-Id": "r1"}, "body": "...", "contentType": "text/html"
  Unknown fields are an error naming the line.
`

func run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	logger := log.New(stderr, "mock-openai: ", 0)
	fs := flag.NewFlagSet("mock-openai", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	script := fs.String("script", "", "JSON script of responses (required)")
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, _ = io.WriteString(stdout, usageText)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			_, _ = io.WriteString(stdout, formatText)
			return 0
		}
		logger.Printf("%v (see mock-openai --help)", err)
		return 1
	}
	if err := serve(*script, *addr, stdin, stdout, logger); err != nil {
		logger.Print(err)
		return 1
	}
	return 0
}

func serve(script, addr string, stdin *os.File, stdout io.Writer, logger *log.Logger) error {
	if script == "" {
		return errors.New("--script is required (see mock-openai --help)")
	}
	s, err := mockopenai.LoadScript(script)
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--addr %q: only loopback addresses are allowed", addr)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		return err
	}
	srv := mockopenai.NewHandler(s)
	hs := &http.Server{Handler: logged(srv, logger), ReadHeaderTimeout: 10 * time.Second}
	if _, err := fmt.Fprintf(stdout, "http://%s/v1\n", ln.Addr()); err != nil {
		_ = ln.Close()
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if watchesStdin(stdin) {
		go func() {
			_, _ = io.Copy(io.Discard, stdin)
			stop()
		}()
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	srv.Release()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutdownCtx)
	logger.Printf("served %d requests, %d scripted responses left", len(srv.Requests()), srv.Pending())
	return nil
}

// watchesStdin reports whether stdin's EOF should stop the server: only for a pipe or a
// socket, which a parent holds open and whose EOF means the parent is gone. /dev/null, a
// terminal or a file reach EOF (or wait for a key) without meaning anything.
func watchesStdin(stdin *os.File) bool {
	if stdin == nil {
		return false
	}
	fi, err := stdin.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}

func logged(h http.Handler, logger *log.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logger.Printf("%s %s", r.Method, r.URL.Path)
		h.ServeHTTP(w, r)
	})
}
