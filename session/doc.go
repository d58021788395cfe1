// Package session is the engine around one agent: it turns client inputs (prompt, steer,
// follow-up, continue) into busy periods, keeps the busy ledger, emits a truthful
// agent_settled when a period ends, retries failed model calls and compacts the context. It
// also defines session entries (pi's JSONL tree) and the stores that persist them. Its value
// types (events, payloads, results) live in package sessionapi and are re-exported here.
//
// # Contract
//
//   - A [Supervisor] is one session. All its methods are safe for concurrent use. One mutex
//     guards its state and is held while an event is handed to the [Sink], so that a state
//     snapshot ([Supervisor.State]) reflects exactly the events up to its lastSeq and the
//     decision to settle sees every input accepted before it.
//   - Events are typed values ([Event]); the session knows no wire. The sink assigns seq (one
//     counter per connection, shared by all its sessions), encodes synchronously (a
//     message_update points at the live partial message) and never blocks in Emit; a run
//     goroutine calls Sink.Wait outside the lock after each event, which is how a client that
//     stops reading slows the provider's stream.
//   - Methods that accept an input (Prompt, Steer, FollowUp, Continue) return the answer,
//     [Accepted]; the input's events may be emitted before they return, so the front end
//     orders its answer: it holds back the events emitted during the call and queues the
//     answer ahead of them, or right after Accepted.AfterSeq, the last event before the
//     input's first one (a front end whose sink answers, as ACP's prompts, names the input
//     first: PromptRequest.InputID). Methods whose work finishes later (Wait, Compact,
//     NavigateTree with a summary, Bash, Host.Close) decide under the lock and return a
//     [Pending]: a done channel, the outcome, and the seq the answer follows.
//   - One goroutine drives each busy period (driver.go, started only by startDriverLocked):
//     the wait for tools still being prepared (Config.ToolsGate: MCP servers starting) or a
//     pre-prompt or manual compaction or a branch summary that opens it, retries with
//     backoff, compaction, continuation runs for queued inputs, and the settle. It is the
//     only place a period settles: each stage's decision, taken under the lock, names the
//     run or stage that follows, or none, and then the driver settles in that same critical
//     section. Abort cancels the period's context (a tools wait, a backoff, a compaction or
//     a branch summary stop with it) and the agent's run context.
//   - The session is the only owner of the steering and follow-up queues (the period's
//     queued inputs, in acceptance order, drained by the session's queue modes); the agent's
//     loop pulls from them through core.Queues (queues.go), and a pulled input can no longer
//     be cancelled.
//   - A [Host] owns what a process's sessions share: the model catalogue and providers, the
//     provider problems, the id source and the live sessions (opened by the process's
//     [Opener], bounded by MaxSessions). A session never calls its host.
//   - Ids (inputs, runs, permission requests, bash commands) come from an [IDs] shared by every
//     session of a process.
//   - Failed model calls are logged at warn through Config.Logger, the injected logger (no
//     global one): each retry with its attempt and delay, and the failure that ends a
//     period, each with the request's URL, HTTP status and the provider's message
//     (core.ProviderError). They are written under Supervisor.mu, so the logger's writer must
//     not block (the binary's stderr writer drops lines rather than wait).
//   - Lock order (the one place it is written; docs/architecture.md links here): the
//     host's mutex, then a Supervisor.mu, then the agent's or the sink's lock, then the
//     transport writer's. The host takes a session's mutex under its own only to read its
//     id ([Host.Find] and [Host.Close] look a session up with the host's mutex held, and
//     [Supervisor.SessionID] takes that session's mutex, since the id changes with
//     newSession, openSession and forkSession); everything else it does with a session
//     (Open's opener, SetModel's switch, closing, shutting down, waiting) runs on a copy of
//     the list with its mutex released. A session never calls the host, so the order cannot
//     be reversed. Core calls listeners and pulls the queues without holding its own lock;
//     the sink never calls back into a session; the transport calls nobody. Store appends
//     happen under Supervisor.mu (one write each); fsync runs after agent_settled, outside
//     the lock.
package session
