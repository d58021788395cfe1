package session

import (
	"context"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
)

// ShellRunner runs a command for the bash method; onUpdate receives throttled snapshots of
// the output so far (replace semantics). The binary wires the tools package's shell runner.
type ShellRunner func(ctx context.Context, command string, timeout time.Duration, onUpdate func(output string)) (BashResult, error)

// bashState is the user's running command and the messages waiting for the next period.
type bashState struct {
	running bool
	cancel  context.CancelFunc
	// pending are bash executions that finished during a busy period; they enter the
	// context when the next period starts (the context cannot change under a run).
	pending []*core.BashExecutionMessage
}

// Bash runs a command for the user while the agent may be working. Its output streams as
// bash_update events; when it ends, a bashExecution message enters the context at once if
// the session is idle, otherwise when the next busy period starts. It returns the result and
// the seq of the last event it caused. Only one command runs at a time.
func (s *Supervisor) Bash(ctx context.Context, command string, timeout time.Duration) (BashResult, int64, error) {
	run, err := s.StartBash(command, timeout)
	if err != nil {
		return BashResult{}, 0, err
	}
	return run(ctx)
}

// StartBash claims the shell now (so a second bash request that arrives next is refused
// while this one runs) and returns the function that runs the command.
func (s *Supervisor) StartBash(command string, timeout time.Duration) (func(context.Context) (BashResult, int64, error), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readyLocked(); err != nil {
		return nil, err
	}
	if s.cfg.Shell == nil {
		return nil, &Error{Kind: KindInvalidState, Message: "Running shell commands is not available in this server"}
	}
	if s.bash.running {
		return nil, errBusy("A bash command is already running; abort it with abortBash or wait for its result")
	}
	id := s.ids.bashCommand()
	runCtx, cancel := context.WithCancel(context.Background())
	s.bash.running, s.bash.cancel = true, cancel
	shell := s.cfg.Shell
	return func(ctx context.Context) (BashResult, int64, error) {
		defer cancel()
		stop := context.AfterFunc(ctx, cancel)
		defer stop()
		return s.runBash(runCtx, shell, id, command, timeout)
	}, nil
}

func (s *Supervisor) runBash(ctx context.Context, shell ShellRunner, id, command string, timeout time.Duration) (BashResult, int64, error) {
	res, err := shell(ctx, command, timeout, func(output string) {
		s.mu.Lock()
		s.emitLocked(EventBashUpdate, BashUpdate{BashID: id, Output: output})
		s.mu.Unlock()
		// Backpressure like the agent's runs: a client that stops reading pauses the
		// command's output instead of growing the server's memory.
		s.sink.Wait(ctx)
	})

	s.mu.Lock()
	defer s.mu.Unlock()
	s.bash.running, s.bash.cancel = false, nil
	if err != nil {
		return BashResult{}, s.sink.LastSeq(), &Error{Kind: KindInvalidState, Message: err.Error()}
	}
	msg := &core.BashExecutionMessage{
		Command: command, Output: res.Output, ExitCode: res.ExitCode, Cancelled: res.Cancelled,
		Truncated: res.Truncated, FullOutputPath: res.FullOutputPath, Timestamp: s.clock.Now().UnixMilli(),
	}
	if s.period == nil {
		s.addBashLocked(msg)
	} else {
		s.bash.pending = append(s.bash.pending, msg)
	}
	return res, s.sink.LastSeq(), nil
}

// AbortBash kills the running command and reports whether one was running.
func (s *Supervisor) AbortBash() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.bash.running {
		return false
	}
	s.bash.cancel()
	return true
}

// addBashLocked puts a bash execution into the context and the session file.
func (s *Supervisor) addBashLocked(msg *core.BashExecutionMessage) {
	s.agent.AppendMessage(msg)
	s.appendLocked(&Entry{Type: EntryMessage, Message: msg})
}

// flushBashLocked adds the executions that finished during the last period, before the next
// one starts.
func (s *Supervisor) flushBashLocked() {
	for _, msg := range s.bash.pending {
		s.addBashLocked(msg)
	}
	s.bash.pending = nil
}
