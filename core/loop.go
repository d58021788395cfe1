package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// loop is one run of the agent loop (pi's agent-loop.ts). It lives on the run's goroutine; only
// emit touches the agent's shared state, under the agent's lock.
type loop struct {
	a   *Agent
	ctx context.Context
	// messages is the run's context: the transcript at the start plus what the run adds.
	messages    []Message
	newMessages []Message
	// update is reused for every message_update so that streaming a delta allocates nothing.
	update AssistantEvent
}

// emit reduces the agent state, then calls every listener in order and waits for each.
func (l *loop) emit(ev Event) {
	a := l.a
	a.mu.Lock()
	a.reduce(&ev)
	ls := a.listeners
	a.mu.Unlock()
	for _, li := range ls {
		li.fn(l.ctx, ev)
	}
}

func (l *loop) now() int64 { return l.a.clock.Now().UnixMilli() }

// addMessage appends a message to the run's context and result and emits its start and end.
func (l *loop) addMessage(in Input) {
	l.messages = append(l.messages, in.Message)
	l.newMessages = append(l.newMessages, in.Message)
	l.emit(Event{Type: MessageStart, Message: in.Message, InputID: in.ID})
	l.emit(Event{Type: MessageEnd, Message: in.Message, InputID: in.ID})
}

// run executes the loop and returns the messages the run produced.
func (l *loop) run(prompts []Input, poll initialPoll) []Message {
	l.emit(Event{Type: AgentStart})
	l.emit(Event{Type: TurnStart})
	for _, p := range prompts {
		l.addMessage(p)
	}
	var pending []Input
	if poll == pollSteering {
		pending = l.a.opts.Queues.steering()
	}
	l.turns(pending)
	l.emit(Event{Type: AgentEnd, Messages: l.newMessages})
	return l.newMessages
}

// turns is pi's runLoop: the inner loop runs turns while there are tool calls or steering
// messages; the outer loop delivers follow-ups when the inner one would stop.
func (l *loop) turns(pending []Input) {
	firstTurn := true
	for {
		moreToolCalls := true
		for moreToolCalls || len(pending) > 0 {
			if !firstTurn {
				l.emit(Event{Type: TurnStart})
			}
			firstTurn = false
			for _, p := range pending {
				l.addMessage(p)
			}

			msg := l.streamAssistant()
			l.newMessages = append(l.newMessages, msg)
			if msg.StopReason == StopReasonError || msg.StopReason == StopReasonAborted {
				l.emit(Event{Type: TurnEnd, Message: msg})
				return
			}

			var results []*ToolResultMessage
			moreToolCalls = false
			if calls := msg.ToolCalls(); len(calls) > 0 {
				var terminate bool
				if msg.StopReason == StopReasonLength {
					results = l.refuseTruncated(calls)
				} else {
					results, terminate = l.executeBatch(msg, calls)
				}
				moreToolCalls = !terminate
				for _, r := range results {
					l.messages = append(l.messages, r)
					l.newMessages = append(l.newMessages, r)
				}
			}
			l.emit(Event{Type: TurnEnd, Message: msg, ToolResults: results})

			// After an abort nothing new starts: no further model call, and queued messages
			// stay queued for the session to settle.
			if l.ctx.Err() != nil {
				return
			}
			if stop := l.a.opts.ShouldStopAfterTurn; stop != nil {
				info := &TurnInfo{Message: msg, ToolResults: results, Context: l.agentContext(), NewMessages: slices.Clone(l.newMessages)}
				if stop(l.ctx, info) {
					return
				}
			}
			pending = l.a.opts.Queues.steering()
		}
		pending = l.a.opts.Queues.followUp()
		if len(pending) == 0 {
			return
		}
	}
}

// agentContext snapshots the conversation for hooks.
func (l *loop) agentContext() *AgentContext {
	l.a.mu.Lock()
	defer l.a.mu.Unlock()
	return &AgentContext{
		SystemPrompt: l.a.state.SystemPrompt,
		Messages:     slices.Clone(l.messages),
		Tools:        slices.Clone(l.a.state.Tools),
	}
}

// request builds the model request from the run's context (pi's streamAssistantResponse:
// transformContext, then convertToLlm).
func (l *loop) request() (*Request, error) {
	a := l.a
	a.mu.Lock()
	req := &Request{
		Model:         a.state.Model,
		SystemPrompt:  a.state.SystemPrompt,
		ThinkingLevel: a.state.ThinkingLevel,
		SessionID:     a.state.SessionID,
		MaxTokens:     a.opts.MaxTokens,
	}
	tools := slices.Clone(a.state.Tools)
	a.mu.Unlock()
	for _, t := range tools {
		info := t.Info()
		req.Tools = append(req.Tools, ToolSpec{Name: info.Name, Description: info.Description, Parameters: info.Parameters})
	}
	msgs := l.messages
	if tc := a.opts.TransformContext; tc != nil {
		var err error
		if msgs, err = callHook(func() ([]Message, error) { return tc(l.ctx, slices.Clone(msgs)) }); err != nil {
			return nil, err
		}
	}
	llm, err := callHook(func() ([]Message, error) { return a.opts.ConvertToLLM(l.ctx, msgs) })
	if err != nil {
		return nil, err
	}
	req.Messages = llm
	return req, nil
}

// callHook runs a hook, turning a panic into an error.
func callHook[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return f()
}

// streamAssistant calls the model and streams its response as message events. It always
// returns a final message: a failure of any kind (hooks, provider panics, a stream without a
// terminal event) becomes an assistant message with stopReason error, with its full
// lifecycle (unlike pi 0.73.1; docs/protocol.md#differences-from-pi-0731-rpc).
func (l *loop) streamAssistant() *AssistantMessage {
	a := l.a
	a.mu.Lock()
	provider := a.opts.Provider
	level := a.state.ThinkingLevel
	a.mu.Unlock()
	started := l.a.clock.Now()
	if provider == nil {
		return l.fail(nil, ErrNoProvider, started, level)
	}
	req, err := l.request()
	if err != nil {
		return l.fail(nil, err, started, level)
	}
	level = req.ThinkingLevel
	var partial, final *AssistantMessage
	err = l.consume(provider, req, &partial, &final)
	if err != nil {
		return l.fail(partial, err, started, level)
	}
	if final == nil {
		if l.ctx.Err() != nil {
			return l.fail(partial, Aborted(), started, level)
		}
		return l.fail(partial, errors.New(errStreamIncomplete), started, level)
	}
	l.stamp(final, started, level)
	if partial == nil {
		l.messages = append(l.messages, final)
		l.emit(Event{Type: MessageStart, Message: final})
	} else {
		l.messages[len(l.messages)-1] = final
	}
	l.emit(Event{Type: MessageEnd, Message: final})
	return final
}

// consume ranges over the provider's stream. A panic in the provider is returned as an error.
func (l *loop) consume(provider Provider, req *Request, partial, final **AssistantMessage) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("provider panicked: %v", r)
		}
	}()
	for ev := range provider.Stream(l.ctx, req) {
		switch ev.Type {
		case EventStart:
			if *partial == nil {
				*partial = ev.Partial
				l.messages = append(l.messages, ev.Partial)
				l.emit(Event{Type: MessageStart, Message: ev.Partial})
			}
		case EventDone, EventError:
			*final = ev.Partial
			return nil
		default:
			if *partial == nil {
				continue // updates before start are dropped, as pi does
			}
			l.update = ev
			l.emit(Event{Type: MessageUpdate, Message: *partial, Update: &l.update})
		}
	}
	return nil
}

// stamp records on a finished response how long its model call took and the thinking level
// it asked for, as pi 1.6.0 does (off when none was set).
func (l *loop) stamp(msg *AssistantMessage, started time.Time, level ThinkingLevel) {
	d := l.a.clock.Now().Sub(started).Milliseconds()
	msg.DurationMs = &d
	if level == "" {
		level = ThinkingOff
	}
	msg.ThinkingLevel = level
}

// fail ends the current response with an error (or aborted) assistant message carrying what
// was streamed so far, emitting its message_start if it had none.
func (l *loop) fail(partial *AssistantMessage, err error, started time.Time, level ThinkingLevel) *AssistantMessage {
	var pe *ProviderError
	if !errors.As(err, &pe) {
		pe = &ProviderError{Kind: ErrorOther, Message: err.Error()}
	}
	reason := StopReasonError
	if pe.Kind == ErrorAborted {
		reason = StopReasonAborted
	}
	msg := partial
	if msg == nil {
		// Nothing was streamed: the message starts already failed.
		a := l.a
		a.mu.Lock()
		model := a.state.Model
		a.mu.Unlock()
		msg = &AssistantMessage{
			Content:      []Content{TextBlock("")},
			API:          model.API,
			Provider:     model.Provider,
			Model:        model.ID,
			StopReason:   reason,
			ErrorMessage: pe.Message,
			Failure:      pe,
			Timestamp:    l.now(),
		}
		l.messages = append(l.messages, msg)
		l.emit(Event{Type: MessageStart, Message: msg})
	}
	msg.StopReason = reason
	msg.ErrorMessage = pe.Message
	msg.Failure = pe
	l.stamp(msg, started, level)
	l.emit(Event{Type: MessageEnd, Message: msg})
	return msg
}
