// Package piclient is a Go client for pi-rpc, the AI coding agent driven with JSON-RPC 2.0
// over stdio. It serves scripted harnesses, the demo (cmd/demo) and pi-rpc's own end-to-end
// tests, so it stays small, depends only on the standard library and pi-rpc's protocol types,
// and surfaces what the server does rather than smoothing it over.
//
// # Connecting
//
// [Spawn] starts pi-rpc as a child process and talks to it over its stdin and stdout with
// newline-delimited JSON; [New] wraps any stream (tests use [net.Pipe]). Every method of the
// protocol has a typed call ([Client.Prompt], [Client.Steer], [Client.WaitSettled], the session
// calls such as [Client.NewSession] and [Client.GetEntries], [Client.Bash], ...) taking and
// returning protocol's params and results; [Client.Call] reaches any method by name.
//
//	c, err := piclient.Spawn(ctx, piclient.SpawnOptions{
//		Binary: "bin/pi-rpc",
//		Args:   []string{"--provider", "faux", "--faux-script", "script.json"},
//	})
//	if err != nil { ... }
//	defer c.Close()
//	in, err := c.Prompt(ctx, protocol.PromptParams{Message: "Read notes.txt"})
//	for ev, err := range c.Events(ctx) {
//		if err != nil { ... }
//		if ev.Type == "agent_settled" { break }
//	}
//
// Calls may be made from any goroutine, concurrently. Cancelling a call's context sends
// $/cancelRequest for it and returns the context's error at once; a late response is dropped.
// Server errors come back as [*Error], with the JSON-RPC code and [Error.Kind] for data.kind.
//
// # Events
//
// Every "event" notification is queued in memory, without bound, in the order it arrived: the
// reader never waits for the consumer and nothing is dropped, so a slow consumer costs memory,
// not events (the server's own backpressure only applies when this client stops reading,
// which it never does). Take events with [Client.NextEvent] or iterate with [Client.Events].
// Because the server writes a response before any event its request causes, an event that
// follows a call's result in the queue was caused no earlier than the call.
//
// [Event.Decode] decodes an event into its protocol type (protocol.EventDocTypes maps each
// event type to one), which holds the whole event: a message_end's message as a core.Message,
// a message_update's step, an agent_end's messages.
//
// # Server requests
//
// pi-rpc asks for tool permissions with permission/request. [Options.OnPermission] answers
// them, each on its own goroutine, with a context cancelled when the server withdraws the
// request ($/cancelRequest) or the connection ends. Without a handler, and for any other
// method, the client answers -32601 (method not found), which the server counts as deny.
// With a handler set, [Client.Initialize] declares the permissions capability, so the server
// asks before every write, edit and bash call (approval mode ask); without initialize, or
// without a handler, it runs them unasked (auto) unless --approval says otherwise.
//
// # Process life
//
// When a spawned pi-rpc exits, every pending call fails with an [*ExitError] carrying the exit
// status and the last lines of its stderr, and [Client.Err] reports the same error.
// [Client.Close] asks the server to shut down and exit, waits up to two seconds, then kills it;
// the error of a killed server says so in [ExitError.Killed] (on Windows a killed process
// exits with status 1 and no signal, so the status alone cannot tell).
package piclient
