// Package core is the agent: pi's data model (messages, content blocks, usage, models), the
// provider and tool seams, and [Agent], which runs pi's two-level agent loop with tool
// batches, steering and follow-up messages pulled from their owner, and events.
//
// core is pure: it does no I/O, reads no clock and makes no random ids except through what it
// is given ([Options.Clock], the [Provider], the [Tool]s). Given a scripted provider and a
// fake clock, a run's events are fully deterministic.
//
// # The loop
//
// A run starts with agent_start and a turn_start, emits the prompt messages, and then runs
// turns: one model response (message_start, message_update per streamed change,
// message_end), then the tool calls of the response as one batch, then turn_end. Steering
// messages are polled after each batch; follow-ups when the agent would otherwise stop. The
// run ends with exactly one agent_end. Differences from pi 0.73.1 (also in docs/protocol.md):
//
//   - every failure (a hook returning an error, a provider that panics or ends its stream
//     without a terminal event) yields the full lifecycle: the failed assistant message's
//     message_start and message_end with stopReason "error", then turn_end, then agent_end;
//   - tool calls of a response cut off by the output limit are not executed: each gets an
//     error result saying so;
//   - a tool update arriving after its tool_execution_end is dropped;
//   - after an abort the loop makes no further model call and delivers no queued message:
//     the batch in progress ends, then turn_end and agent_end;
//   - a tool that has not returned [Options.AbandonAfter] (50 ms) after an abort is
//     abandoned: its tool_execution_end is an error, "Tool aborted (did not stop within 50
//     ms)", and its late result and updates are dropped;
//   - a panicking tool or hook becomes an error result and the run goes on.
//
// # Concurrency contract
//
// All methods of [Agent] are safe to call from any goroutine at any time.
//
// [Agent.Prompt] and [Agent.Continue] decide synchronously, under the agent's lock, whether a
// run can start, and start it on a new goroutine: they return a [Run] at once, or an error
// ([ErrBusy] while a run is active). A run is active from that moment until its agent_end
// listeners have returned; [Run.Done] is closed just after.
//
// Events are emitted only from the run's goroutine, one at a time, in order. Before listeners
// see an event the agent's state is updated (so [Agent.State] inside a listener already
// reflects it); then every listener is called in subscription order and the run waits for
// each to return. A slow listener therefore slows the run, back to the provider's stream:
// nothing is buffered or dropped. Listeners must not call [Agent.Prompt] or
// [Agent.Continue] expecting success (the run is still active), but may call anything else.
//
// The message of a message_update is the live partial message the provider is building: it
// is valid only during the listener call, and the next delta changes it. Every other message
// in an event is final.
//
// The agent holds no queues. Steering and follow-up messages belong to whoever accepts them
// (the session); the loop pulls them through [Options.Queues] at pi's points (at the start of
// a run, after each batch, when it would stop), on the run's goroutine without the agent's
// lock, and [Agent.Continue] polls the queues it is given synchronously. A pulled message is
// delivered at once; the events of a delivered message carry its [Input.ID].
//
// [Agent.Abort] cancels the run's context, which the provider and tools receive. Tools run on
// their own goroutines (so that one ignoring the abort can be abandoned); hooks and
// listeners run on the run's goroutine.
package core
