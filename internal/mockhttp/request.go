package mockhttp

import (
	"net/http"
	"sync"
)

// Request is one recorded request.
type Request struct {
	Path string
	// Query is the URL's query, without "?" (Azure's api-version).
	Query  string
	Header http.Header
	// Body is the raw request body; Decoded is the same body decoded (nil if not JSON).
	Body    []byte
	Decoded map[string]any

	gone     chan struct{}
	goneOnce sync.Once
	done     chan struct{}
}

// Gone is closed when the client went away before its response was complete.
func (r *Request) Gone() <-chan struct{} { return r.gone }

// Done is closed when the server finished handling the request.
func (r *Request) Done() <-chan struct{} { return r.done }

// IsGone reports whether the client went away before its response was complete.
func (r *Request) IsGone() bool {
	select {
	case <-r.gone:
		return true
	default:
		return false
	}
}

func (r *Request) markGone() { r.goneOnce.Do(func() { close(r.gone) }) }
