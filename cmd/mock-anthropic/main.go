// Command mock-anthropic serves a scripted Anthropic Messages endpoint on loopback, for the
// demo, benchmarks and manual checks: the sibling of cmd/mock-openai on Anthropic's wire. The
// script format is documented in package internal/mockanthropic; scripts that use only the
// fields both mocks share (text, chunkSize, toolCalls and the faults) play on either.
//
//	mock-anthropic --script turns.json [--addr 127.0.0.1:0]
//
// It prints its base URL (for ANTHROPIC_BASE_URL or --base-url; requests go to /v1/messages)
// as the first and only line on stdout, logs to stderr, and exits on SIGTERM, SIGINT or when
// stdin reaches EOF, so a parent process that dies takes it along.
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

	"github.com/pi-rpc/pi-rpc/internal/mockanthropic"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("mock-anthropic: ")
	if err := run(); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

func run() error {
	script := flag.String("script", "", "JSON script of responses (required)")
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on")
	flag.Parse()
	if *script == "" {
		return errors.New("--script is required")
	}
	s, err := mockanthropic.LoadScript(*script)
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", *addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--addr %q: only loopback addresses are allowed", *addr)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", *addr)
	if err != nil {
		return err
	}
	srv := mockanthropic.NewHandler(s)
	hs := &http.Server{Handler: logged(srv), ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("http://%s\n", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()
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
	log.Printf("served %d requests, %d scripted responses left", len(srv.Requests()), srv.Pending())
	return nil
}

func logged(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.Printf("%s %s", r.Method, r.URL.Path)
		h.ServeHTTP(w, r)
	})
}
