package main

import (
	"context"
	"os"
	"syscall"
	"testing"

	"github.com/rs/zerolog"
)

func closed() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// The first ending decides the exit code, the same for every front end.
func TestProcessLifeAwait(t *testing.T) {
	exit := make(chan int, 1)
	exit <- 3
	for _, tc := range []struct {
		name string
		e    endings
		sig  os.Signal
		end  ending
		code int
	}{
		{"stdin EOF", endings{input: closed()}, nil, endInput, 0},
		{"stdout broken", endings{output: closed()}, nil, endOutput, 0},
		{"connection failed", endings{connection: closed()}, nil, endConnection, 0},
		{"SIGTERM", endings{}, syscall.SIGTERM, endSignal, 143},
		{"SIGINT", endings{}, syscall.SIGINT, endSignal, 130},
		{"SIGHUP", endings{}, syscall.SIGHUP, endSignal, 129},
		{"exit", endings{exit: exit}, nil, endExit, 3},
	} {
		p := &processLife{signals: make(chan os.Signal, 1), log: zerolog.Nop()}
		if tc.sig != nil {
			p.signals <- tc.sig
		}
		if end, code := p.await(tc.e); end != tc.end || code != tc.code {
			t.Errorf("%s: ending %d, code %d; want %d, %d", tc.name, end, code, tc.end, tc.code)
		}
	}
}

// A signal cuts a wait short and gives its code; a wait that ends by itself gives none.
func TestProcessLifeUntilSignal(t *testing.T) {
	p := &processLife{signals: make(chan os.Signal, 1), log: zerolog.Nop()}
	p.signals <- syscall.SIGTERM
	code, signalled := p.untilSignal(func(ctx context.Context) { <-ctx.Done() })
	if !signalled || code != 143 {
		t.Fatalf("signalled wait: code %d, signalled %v; want 143, true", code, signalled)
	}
	code, signalled = p.untilSignal(func(context.Context) {})
	if signalled || code != 0 {
		t.Fatalf("wait without a signal: code %d, signalled %v", code, signalled)
	}
}
