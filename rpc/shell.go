package rpc

import (
	"context"
	"encoding/json"
	"math"
	"time"

	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
)

type bashParams protocol.BashParams

func (p *bashParams) validate(raw *json.RawMessage) error {
	var probe struct {
		Command *json.RawMessage `json:"command"`
	}
	if raw != nil {
		_ = json.Unmarshal(*raw, &probe)
	}
	if probe.Command == nil {
		return invalidParams("params.command: required")
	}
	if p.Timeout < 0 || math.IsInf(p.Timeout, 0) || math.IsNaN(p.Timeout) {
		return invalidParams("params.timeout: must be a non-negative number of seconds")
	}
	return nil
}

// bash runs the user's command and answers when it ends, after its last bash_update.
func (s *Server) bash(_ context.Context, sup *session.Supervisor, p *bashParams) (*later, error) {
	run, err := sup.Bash(p.Command, time.Duration(p.Timeout*float64(time.Second)))
	if err != nil {
		return nil, err
	}
	return deferred(func(ctx context.Context) (any, int64, error) {
		// Cancelling the request ($/cancelRequest, the client gone) kills the command; the
		// answer still carries its result.
		stop := context.AfterFunc(ctx, run.Cancel)
		defer stop()
		res, err := run.Result()
		if err != nil {
			return nil, 0, err
		}
		return res, run.Seq(), nil
	}), nil
}

func (s *Server) abortBash(_ context.Context, sup *session.Supervisor, _ *protocol.Empty) (*protocol.AbortBashResult, error) {
	return &protocol.AbortBashResult{Aborted: sup.AbortBash()}, nil
}
