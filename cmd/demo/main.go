// Command demo drives pi-rpc through its real protocol and prints the conversation as a
// compact transcript: `make demo` runs it after building bin/pi-rpc.
//
// In a fresh temporary directory holding notes.txt and review.txt, it sends a prompt that
// makes the agent read the review and edit notes.txt in a tool loop; steers while the first
// edit waits for its approval; queues a follow-up; waits for agent_settled; then sends a
// second prompt and aborts it mid-stream.
//
// It runs offline on the scripted faux model, whatever the environment holds (an
// OPENAI_API_KEY or ANTHROPIC_API_KEY does not change it), and its output is the same on
// every run (cmd/demo/testdata/demo.golden, checked by `make test`). Only -live (`make
// demo-live`) runs it on a real, billed OpenAI model, with the key from OPENAI_API_KEY.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// demoTimeout bounds the whole demo: a real model is slow, but nothing should take this long.
const demoTimeout = 5 * time.Minute

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(2)
	}
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

// parseFlags reads the command line. The environment is consulted only for -live, which
// needs OPENAI_API_KEY: nothing in it can move the default run off the scripted model.
func parseFlags(args []string, getenv func(string) string, usage io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.StringVar(&cfg.bin, "bin", "bin/pi-rpc", "the pi-rpc binary to drive")
	fs.BoolVar(&cfg.live, "live", false, "run on a real OpenAI model (billed; needs OPENAI_API_KEY) instead of the offline scripted model")
	fs.StringVar(&cfg.model, "model", "", "with -live: the OpenAI model (default pi-rpc's)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if cfg.live && getenv("OPENAI_API_KEY") == "" {
		return config{}, errors.New("-live runs on a real OpenAI model: set OPENAI_API_KEY")
	}
	if cfg.model != "" && !cfg.live {
		return config{}, errors.New("-model chooses the model of -live; the offline demo runs on the scripted model")
	}
	return cfg, nil
}
