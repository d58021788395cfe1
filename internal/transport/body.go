package transport

import "io"

// Body is a message that writes itself when the writer comes to it, so that a large one
// (getEntries' answer over a long session: megabytes) is written from what it is made of
// straight into the writer's buffer and never built whole in memory. What it writes must not
// change once it is queued: the writer goroutine calls it later, outside any lock of its
// owner.
type Body interface {
	// Size is the exact number of bytes WriteTo writes: the Content-Length header announces
	// it, and the ordered lane's backpressure counts it.
	Size() int
	// WriteTo writes the message to w (the writer's buffer) and returns the bytes written.
	WriteTo(w io.Writer) (int64, error)
}
