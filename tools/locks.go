package tools

import (
	"context"
	"errors"
	"sync"

	"github.com/pi-rpc/pi-rpc/core"
)

// errAborted is pi's message for a tool call abandoned because the run was aborted.
var errAborted = errors.New("Operation aborted")

// pathLocks serialises mutations of one real path (pi's withFileMutationQueue) while writes
// to different files run in parallel. It is package-wide because the file system is: two
// sessions or two tool sets writing one file must still take turns.
var pathLocks = &lockRegistry{m: map[string]*pathLock{}}

type lockRegistry struct {
	mu sync.Mutex
	m  map[string]*pathLock
}

type pathLock struct {
	ch   chan struct{} // capacity 1: holding the token is holding the lock
	refs int
}

// lock takes the lock for key, giving up with errAborted when ctx ends first. The returned
// function releases it; entries are dropped when nobody holds or waits, so the map stays small.
func (r *lockRegistry) lock(ctx context.Context, key string) (func(), error) {
	r.mu.Lock()
	l := r.m[key]
	if l == nil {
		l = &pathLock{ch: make(chan struct{}, 1)}
		r.m[key] = l
	}
	l.refs++
	r.mu.Unlock()
	drop := func() {
		r.mu.Lock()
		l.refs--
		if l.refs == 0 {
			delete(r.m, key)
		}
		r.mu.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; drop() }, nil
	case <-ctx.Done():
		drop()
		return nil, errAborted
	}
}

// decodeCall decodes a call's arguments and refuses to start once the run is aborted.
func decodeCall(ctx context.Context, call core.ToolCall, in any) error {
	if err := call.Decode(in); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return errAborted
	}
	return nil
}
