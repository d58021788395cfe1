// Command demo drives pi-rpc through its real protocol and prints the conversation as a
// compact transcript: `make demo` runs it after building bin/pi-rpc.
//
// In a fresh temporary directory holding notes.txt and review.txt, it sends a prompt that
// makes the agent read the review and edit notes.txt in a tool loop; steers while the first
// edit waits for its approval; queues a follow-up; waits for agent_settled; then sends a
// second prompt and aborts it mid-stream. Offline it runs on the scripted faux model and its output is the same
// on every run (cmd/demo/testdata/demo.golden, checked by `make test`); with OPENAI_API_KEY set
// it runs on the real model instead.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// demoTimeout bounds the whole demo: a real model is slow, but nothing should take this long.
const demoTimeout = 5 * time.Minute

func main() {
	var cfg config
	flag.StringVar(&cfg.bin, "bin", "bin/pi-rpc", "the pi-rpc binary to drive")
	flag.StringVar(&cfg.model, "model", "", "model for the OpenAI provider (default pi-rpc's)")
	faux := flag.Bool("faux", false, "use the scripted faux model even when OPENAI_API_KEY is set")
	flag.Parse()
	cfg.openAI = os.Getenv("OPENAI_API_KEY") != "" && !*faux
	cfg.stderr = os.Stderr

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, demoTimeout)
	defer cancel()
	if err := run(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}
