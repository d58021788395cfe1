package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"
)

// ending is what ended a front end's serving.
type ending int

const (
	endInput      ending = iota // stdin ended or failed
	endOutput                   // a write to stdout failed: the client closed its end
	endConnection               // the connection failed (rpc: it should not; bad input is answered)
	endSignal                   // SIGTERM, SIGINT or SIGHUP
	endExit                     // the client asked to exit (rpc's exit method)
)

// endings are the channels that end serving; a nil channel never does.
type endings struct {
	input      <-chan struct{}
	output     <-chan struct{}
	connection <-chan struct{}
	exit       <-chan int
}

// processLife is the process's life around one front end, the same for every protocol:
// the signals that end it are watched from before serving starts, the first ending
// decides the exit code (0 at stdin EOF, a broken stdout or a failed connection; 128+N on
// signal N, so 143 on SIGTERM, 130 on SIGINT and 129 on SIGHUP; the code the client asked
// for), and the front end then shuts down its sessions (which aborts their runs and kills
// their tools' process groups) before the process exits.
type processLife struct {
	signals chan os.Signal
	log     zerolog.Logger
}

// watchProcess starts watching SIGTERM, SIGINT and SIGHUP; stop ends it.
func watchProcess(log zerolog.Logger) *processLife {
	p := &processLife{signals: make(chan os.Signal, 1), log: log}
	signal.Notify(p.signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	return p
}

// stop stops watching the signals.
func (p *processLife) stop() { signal.Stop(p.signals) }

// signalCode is the exit code for a signal: 128 + its number.
func signalCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// await blocks until the first ending, logs it and returns it with the exit code.
func (p *processLife) await(e endings) (ending, int) {
	select {
	case <-e.input:
		p.log.Debug().Msg("stdin closed")
		return endInput, 0
	case <-e.connection:
		// With nothing to serve, shut down as if stdin had ended.
		p.log.Warn().Msg("connection closed")
		return endConnection, 0
	case <-e.output:
		p.log.Debug().Msg("stdout closed")
		return endOutput, 0
	case sig := <-p.signals:
		p.log.Info().Str("signal", sig.String()).Msg("terminating")
		return endSignal, signalCode(sig)
	case code := <-e.exit:
		return endExit, code
	}
}

// untilSignal runs f with a context that a signal cancels (a wait that only a signal may
// cut short, as --on-eof finish's). It reports the signal's exit code if one arrived.
func (p *processLife) untilSignal(f func(ctx context.Context)) (code int, signalled bool) {
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case sig := <-p.signals:
			p.log.Info().Str("signal", sig.String()).Msg("terminating")
			code, signalled = signalCode(sig), true
			cancel()
		case <-ctx.Done():
		}
	}()
	f(ctx)
	cancel()
	<-watched
	return code, signalled
}
