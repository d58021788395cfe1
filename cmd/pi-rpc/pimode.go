package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/pimode"
	"github.com/pi-rpc/pi-rpc/session"
)

// servePi runs pi's RPC protocol (--mode rpc, --protocol pi; docs/pi-compat.md) until stdin
// ends, stdout breaks or a signal arrives, then persists and exits as pi does: 0 at stdin
// EOF, 128+signal on SIGTERM, SIGINT or SIGHUP.
func servePi(cfg *config, setup *agentSetup, sessions *startSessions, host *mcpHost, stdin io.Reader, stdout io.Writer, log zerolog.Logger) int {
	writer := pimode.NewWriter(stdout, 1<<20, log)
	problem := ""
	if len(setup.problems) > 0 {
		problem = setup.problems[0].Message
	}
	pcfg := *cfg
	if pcfg.approval == "" {
		// pi has no approval step: tools run unasked unless --approval says otherwise.
		pcfg.approval = session.ApprovalAuto
	}
	sup := newSupervisor(&pcfg, setup, host.toolsWith(setup.tools), problem, sessions, writer, &session.IDs{}, log)
	host.attach(sup, setup.tools)
	var models pimode.Models
	if setup.models != nil {
		models = setup.models
	}
	server := pimode.NewServer(pimode.Options{
		Supervisor: sup, Writer: writer, In: stdin, Models: models,
		MaxLineBytes: cfg.maxMessageBytes, Logger: log,
	})
	server.SetApprovalTimeout(cfg.approvalTimeout)
	sup.SetPermissionAsker(server.Asker())

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(signals)
	server.Serve()
	code := 0
	select {
	case <-server.InputClosed():
		log.Debug().Msg("stdin closed")
	case <-writer.Broken():
		log.Debug().Msg("stdout closed")
	case sig := <-signals:
		code = 128 + int(sig.(syscall.Signal))
		log.Info().Str("signal", sig.String()).Msg("terminating")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sup.Close(ctx); err != nil {
		log.Warn().Err(err).Msg("shutdown")
	}
	server.Close()
	writer.Close(flushTimeout)
	return code
}
