package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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

// writeFileAtomic replaces path with data through a temp file in the same directory and a
// rename, so a reader never sees half a file and an abandoned write leaves the old content.
// ctx is checked just before the rename: once the rename starts the write is complete.
// An existing file keeps its permission bits.
func writeFileAtomic(ctx context.Context, path string, data []byte) error {
	perm := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		perm = st.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".pi-rpc-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return errAborted
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return nil
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
