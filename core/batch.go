package core

import (
	"fmt"
	"slices"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"
	"github.com/pi-rpc/pi-rpc/internal/toolschema"
)

// Tool-result texts the loop writes itself.
const (
	textBlocked   = "Tool execution was blocked"
	textAborted   = "Operation aborted"
	textTruncated = "Tool call was not executed: the response was cut off by the output token limit (stopReason \"length\"), so its arguments may be incomplete. Retry with a shorter call."
)

// abandonedText is the result of a tool that ignored an abort.
func abandonedText(ms int64) string {
	return fmt.Sprintf("Tool aborted (did not stop within %d ms)", ms)
}

// callState is one tool call of a batch as it moves through prepare, execute and finalize.
type callState struct {
	call   *Content
	tool   Tool
	args   map[string]any
	result ToolResult
	// isError marks an error result; immediate marks a result decided in the prepare phase.
	isError   bool
	immediate bool
	// done is closed when the loop has recorded the call's end; late updates are dropped.
	done     chan struct{}
	finished bool
	message  *ToolResultMessage
	// started is when the tool began to run; durationMs is set when it ends, if it ran.
	started    time.Time
	ran        bool
	durationMs *int64
}

func errorResult(text string) ToolResult {
	return ToolResult{Content: []Content{TextBlock(text)}, Details: map[string]any{}}
}

// executeBatch runs the tool calls of one assistant message (pi's executeToolCalls) and returns
// their results in source order, and whether every result asked to terminate.
func (l *loop) executeBatch(msg *AssistantMessage, calls []*Content) ([]*ToolResultMessage, bool) {
	a := l.a
	a.mu.Lock()
	tools := slices.Clone(a.state.Tools)
	sequential := a.state.ToolExecution == ExecutionSequential
	a.mu.Unlock()

	states := make([]*callState, len(calls))
	for i, c := range calls {
		states[i] = &callState{call: c, done: make(chan struct{})}
		for _, t := range tools {
			if t.Info().Name == c.Name {
				states[i].tool = t
				if t.Info().Mode == ExecutionSequential {
					sequential = true
				}
				break
			}
		}
	}

	if sequential {
		for _, s := range states {
			if l.begin(msg, s) {
				l.runTools(msg, []*callState{s})
			}
			l.emitResultMessage(s)
		}
	} else {
		var runnable []*callState
		for _, s := range states {
			if l.begin(msg, s) {
				runnable = append(runnable, s)
			}
		}
		if len(runnable) > 0 {
			l.runTools(msg, runnable)
		}
		for _, s := range states {
			l.emitResultMessage(s)
		}
	}

	results := make([]*ToolResultMessage, len(states))
	terminate := len(states) > 0
	for i, s := range states {
		results[i] = s.message
		terminate = terminate && s.result.Terminate
	}
	return results, terminate
}

// refuseTruncated answers every tool call of a response cut off by the output limit with an
// error result instead of running it (unlike pi 0.73.1;
// docs/protocol.md#differences-from-pi-0731-rpc).
func (l *loop) refuseTruncated(calls []*Content) []*ToolResultMessage {
	results := make([]*ToolResultMessage, len(calls))
	for i, c := range calls {
		s := &callState{call: c, done: make(chan struct{}), result: errorResult(textTruncated), isError: true, immediate: true}
		l.emitToolStart(s)
		l.finish(s)
		l.emitResultMessage(s)
		results[i] = s.message
	}
	return results
}

// begin announces the call and prepares it; it reports whether the tool is still to run, and
// otherwise (prepare decided the result) records the call's end.
func (l *loop) begin(msg *AssistantMessage, s *callState) bool {
	l.emitToolStart(s)
	l.prepare(msg, s)
	if s.immediate {
		l.finish(s)
		return false
	}
	return true
}

func (l *loop) emitToolStart(s *callState) {
	l.emit(Event{Type: ToolExecutionStart, ToolCallID: s.call.ID, ToolName: s.call.Name, Args: s.call.Arguments})
}

// prepare looks the tool up, prepares and validates the arguments and runs beforeToolCall;
// any of them can decide the call's result at once.
func (l *loop) prepare(msg *AssistantMessage, s *callState) {
	immediate := func(text string) {
		s.result, s.isError, s.immediate = errorResult(text), true, true
	}
	if l.ctx.Err() != nil {
		immediate(textAborted)
		return
	}
	if s.tool == nil {
		immediate(fmt.Sprintf("Tool %s not found", s.call.Name))
		return
	}
	args, err := callHook(func() (map[string]any, error) {
		raw := s.call.Arguments
		if p, ok := s.tool.(ArgumentPreparer); ok {
			prepared, err := p.PrepareArguments(toolschema.Clone(raw).(map[string]any))
			if err != nil {
				return nil, err
			}
			raw = prepared
		}
		info := s.tool.Info()
		return l.a.validators.Validate(info.Name, info.Parameters, raw)
	})
	if err != nil {
		immediate(err.Error())
		return
	}
	s.args = args
	if before := l.a.opts.BeforeToolCall; before != nil {
		res, err := callHook(func() (*BeforeToolCallResult, error) {
			return before(l.ctx, &BeforeToolCallContext{Assistant: msg, Call: s.call, Args: s.args, Context: l.agentContext()})
		})
		switch {
		case err != nil:
			immediate(err.Error())
		case res != nil && res.Block:
			reason := res.Reason
			if reason == "" {
				reason = textBlocked
			}
			immediate(reason)
		}
	}
}

// finish records a call's end and emits tool_execution_end.
func (l *loop) finish(s *callState) {
	s.finished = true
	close(s.done)
	result := s.result
	if s.ran {
		d := l.a.clock.Now().Sub(s.started).Milliseconds()
		s.durationMs = &d
	}
	l.emit(Event{Type: ToolExecutionEnd, ToolCallID: s.call.ID, ToolName: s.call.Name, Result: &result, IsError: s.isError, DurationMs: s.durationMs})
}

// emitResultMessage builds the call's tool-result message and emits its start and end.
func (l *loop) emitResultMessage(s *callState) {
	s.message = &ToolResultMessage{
		ToolCallID: s.call.ID,
		ToolName:   s.call.Name,
		Content:    nonNil(s.result.Content),
		Details:    s.result.Details,
		IsError:    s.isError,
		DurationMs: s.durationMs,
		Timestamp:  l.now(),
	}
	l.emit(Event{Type: MessageStart, Message: s.message})
	l.emit(Event{Type: MessageEnd, Message: s.message})
}

type toolOutcome struct {
	state  *callState
	result ToolResult
	err    error
}

type toolUpdate struct {
	state   *callState
	partial ToolResult
}

// runTools executes prepared calls concurrently and emits their updates and ends in the
// order they happen. Every call runs on its own goroutine so that one ignoring an abort can
// be abandoned: AbandonAfter (on the injected clock) after the run is cancelled, each call
// still running ends with an error result, and whatever it sends later is dropped.
func (l *loop) runTools(msg *AssistantMessage, states []*callState) {
	outcomes := make(chan toolOutcome, len(states)) // buffered: an abandoned tool never blocks
	updates := make(chan toolUpdate)                // unbuffered: an update is emitted before the tool goes on
	for _, s := range states {
		s.started, s.ran = l.a.clock.Now(), true
		go l.execute(s, outcomes, updates)
	}
	remaining := len(states)
	cancelled := l.ctx.Done()
	var abandon <-chan time.Time
	for remaining > 0 {
		select {
		case u := <-updates:
			if !u.state.finished {
				partial := u.partial
				l.emit(Event{Type: ToolExecutionUpdate, ToolCallID: u.state.call.ID, ToolName: u.state.call.Name, Args: u.state.call.Arguments, Result: &partial})
			}
		case o := <-outcomes:
			if o.state.finished {
				continue
			}
			l.finalize(msg, o)
			l.finish(o.state)
			remaining--
		case <-cancelled:
			cancelled = nil
			abandon = clock.After(l.a.clock, l.a.opts.AbandonAfter)
		case <-abandon:
			for _, s := range states {
				if !s.finished {
					s.result, s.isError = errorResult(abandonedText(l.a.opts.AbandonAfter.Milliseconds())), true
					l.finish(s)
					remaining--
				}
			}
		}
	}
}

// execute runs one tool on its own goroutine and sends its outcome.
func (l *loop) execute(s *callState, outcomes chan<- toolOutcome, updates chan<- toolUpdate) {
	update := func(partial ToolResult) {
		select {
		case updates <- toolUpdate{s, partial}:
		case <-s.done:
		}
	}
	var o toolOutcome
	o.state = s
	func() {
		defer func() {
			if r := recover(); r != nil {
				o.err = fmt.Errorf("Tool %s panicked: %v", s.call.Name, r)
			}
		}()
		o.result, o.err = s.tool.Execute(l.ctx, ToolCall{ID: s.call.ID, Name: s.call.Name, Args: s.args}, update)
	}()
	outcomes <- o
}

// finalize turns a tool's outcome into the call's result and applies afterToolCall.
func (l *loop) finalize(msg *AssistantMessage, o toolOutcome) {
	s := o.state
	if o.err != nil {
		s.result, s.isError = errorResult(o.err.Error()), true
	} else {
		s.result = o.result
	}
	after := l.a.opts.AfterToolCall
	if after == nil {
		return
	}
	res, err := callHook(func() (*AfterToolCallResult, error) {
		return after(l.ctx, &AfterToolCallContext{Assistant: msg, Call: s.call, Args: s.args, Result: s.result, IsError: s.isError, Context: l.agentContext()})
	})
	if err != nil {
		s.result, s.isError = errorResult(err.Error()), true
		return
	}
	if res == nil {
		return
	}
	if res.Content != nil {
		s.result.Content = *res.Content
	}
	if res.Details != nil {
		s.result.Details = *res.Details
	}
	if res.IsError != nil {
		s.isError = *res.IsError
	}
	if res.Terminate != nil {
		s.result.Terminate = *res.Terminate
	}
}
