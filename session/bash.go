package session

import (
	"context"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// ShellRunner runs a command for the bash method; onUpdate receives throttled snapshots of
// the output so far (replace semantics). The binary wires the tools package's shell runner.
// onUpdate receives throttled snapshots of the output's tail (replace semantics), onChunk
// every piece of output as it arrives (pi 1.6.0's bash_execution_update deltas).
type ShellRunner func(ctx context.Context, command string, timeout time.Duration, onUpdate func(output string), onChunk func(delta string)) (sessionapi.BashResult, error)

// BashOptions are the options of [Supervisor.BashWith].
type BashOptions struct {
	// Timeout kills the command after this long; 0 means none.
	Timeout time.Duration
	// ExcludeFromContext stores the execution but keeps its output out of the model's
	// context (pi's excludeFromContext).
	ExcludeFromContext bool
	// OnChunk, if set, receives each piece of output as it arrives, in order, before the
	// result. It must not call the supervisor.
	OnChunk func(delta string)
}

// bashState is the user's running command and the messages waiting for the next period.
type bashState struct {
	running bool
	cancel  context.CancelFunc
	// pending are bash executions that finished during a busy period; they enter the
	// context when the next period starts (the context cannot change under a run).
	pending []*core.BashExecutionMessage
}

// Bash runs a command for the user while the agent may be working. It claims the shell now
// (a second bash request that arrives next is refused while this one runs; one command runs
// at a time) and runs the command on its own goroutine. Its output streams as bash_update
// events; when it ends, a bashExecution message enters the context at once if the session is
// idle, otherwise when the next busy period starts. The Pending finishes with the result and
// the seq of the last event it caused; its Cancel kills the command, as AbortBash does.
func (s *Supervisor) Bash(command string, timeout time.Duration) (*Pending[sessionapi.BashResult], error) {
	return s.BashWith(command, BashOptions{Timeout: timeout})
}

// BashWith is [Supervisor.Bash] with pi's options: output chunks and excludeFromContext.
func (s *Supervisor) BashWith(command string, o BashOptions) (*Pending[sessionapi.BashResult], error) {
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
	done := newPending[sessionapi.BashResult]()
	done.cancel = cancel
	go func() {
		defer cancel()
		res, seq, err := s.runBash(runCtx, shell, id, command, o)
		done.finish(res, seq, err)
	}()
	return done, nil
}

func (s *Supervisor) runBash(ctx context.Context, shell ShellRunner, id, command string, o BashOptions) (sessionapi.BashResult, int64, error) {
	onChunk := func(string) {}
	if o.OnChunk != nil {
		onChunk = func(delta string) {
			o.OnChunk(delta)
			s.sink.Wait(ctx)
		}
	}
	res, err := shell(ctx, command, o.Timeout, func(output string) {
		s.mu.Lock()
		s.emitLocked(sessionapi.EventBashUpdate, sessionapi.BashUpdate{BashID: id, Output: output})
		s.mu.Unlock()
		// Backpressure like the agent's runs: a client that stops reading pauses the
		// command's output instead of growing the server's memory.
		s.sink.Wait(ctx)
	}, onChunk)

	s.mu.Lock()
	defer s.mu.Unlock()
	s.bash.running, s.bash.cancel = false, nil
	if err != nil {
		return sessionapi.BashResult{}, s.sink.LastSeq(), &Error{Kind: KindInvalidState, Message: err.Error()}
	}
	msg := &core.BashExecutionMessage{
		Command: command, Output: res.Output, ExitCode: res.ExitCode, Cancelled: res.Cancelled,
		Truncated: res.Truncated, FullOutputPath: res.FullOutputPath, Timestamp: s.clock.Now().UnixMilli(),
		ExcludeFromContext: o.ExcludeFromContext,
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
