// Package transport owns the wire of a front end: reading frames from the client's stream,
// sorting out input that is not a message before any decoding, and writing every outbound
// byte through one ordered writer. The front ends (rpc, pimode, acp) keep only their
// dialect: the envelope, the error shapes and the method dispatch (docs/architecture.md,
// "Transport").
//
// Reading:
//
//   - [Open] detects the framing when asked to ([Auto]: the first byte decides) and returns
//     a [Reader]: [LineReader] for newline-delimited messages (LF only; a trailing CR is
//     dropped; U+2028 and U+2029 are ordinary characters; a last line without LF is read at
//     EOF), [ContentLengthReader] for LSP-style headers.
//   - A message over the limit is reported as [ErrTooLarge] as soon as it is known to be
//     one and then discarded as it arrives, never held whole; the reader goes on with the
//     next message, so one bad message costs one error response, never the connection.
//   - A header block without a usable Content-Length is a [*BadHeaderError]; the reader
//     resynchronises at the next Content-Length line.
//   - [Classify] sorts a frame before decoding: empty, not JSON (with the decoder's
//     reason), a batch (array), valid JSON that is not an object, or an object, and whether
//     it is valid UTF-8. Each front end answers each kind in its own dialect.
//
// Writing: [Writer] is the only thing that writes the client's stream. It has two lanes: a
// response lane written ahead of everything else, and an ordered lane (events, and any
// message that must keep its place among them) written in the order queued. A response can
// be placed just after the event with a given seq ([Writer.ResponseAfter]); [Writer.Hold]
// keeps the ordered lane back while a batch is being answered. Queueing never blocks;
// [Writer.Wait] blocks a producer while more than the limit of bytes waits in the ordered
// lane, which is how a client that stops reading slows the agent down instead of growing
// the process's memory. A message is bytes or a [Body], which writes itself into the
// writer's buffer when its turn comes and says its size up front (for the Content-Length
// header and the backpressure count), so a response of megabytes is never built whole. The
// writer frames each message, flushes when nothing more is ready, and closes [Writer.Broken]
// at the first failed write (the client closed its end). A front end numbers its events with
// a [Sequence], which takes each seq and queues its event in one step, so that the ordered
// lane receives them in seq order.
package transport
