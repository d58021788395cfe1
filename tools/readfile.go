package tools

import (
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// bufPool recycles grep's file buffers: searching 50k files would otherwise allocate (and
// garbage-collect) each file's contents.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64*1024); return &b }}

// readRegular reads a whole regular file with raw open/fstat/read/close into a pooled
// buffer, skipping os.File's poller registration: on a 50k-file search those extra system
// calls were most of the time (pprof: syscall.Syscall6 at 56%). The fstat on the open
// descriptor refuses anything but a regular file ([openRegularFD]) and sizes the buffer.
// follow=false refuses a final symlink (for paths already resolved, or walk entries).
// release returns the buffer.
func readRegular(path string, follow bool) (data []byte, release func(), err error) {
	fd, size, err := openRegularFD(path, follow)
	if err != nil {
		return nil, func() {}, err
	}
	defer func() { _ = closeRaw(fd) }()
	bp := bufPool.Get().(*[]byte)
	buf := (*bp)[:0]
	if want := int(size) + 1; size > 0 && want > cap(buf) {
		buf = make([]byte, 0, want) // +1 so the read that sees EOF needs no growth
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, rerr := readRaw(fd, buf[len(buf):cap(buf)])
		if n > 0 {
			buf = buf[:len(buf)+n]
		}
		if errors.Is(rerr, syscall.EINTR) {
			continue
		}
		if rerr != nil {
			*bp = buf[:0]
			bufPool.Put(bp)
			return nil, func() {}, &os.PathError{Op: "read", Path: path, Err: rerr}
		}
		if n == 0 {
			break
		}
	}
	return buf, func() {
		if cap(buf) <= 4<<20 {
			*bp = buf[:0]
			bufPool.Put(bp)
		}
	}, nil
}

// sortDirEntries orders entries by name, as os.ReadDir does.
func sortDirEntries(ents []os.DirEntry) {
	slices.SortFunc(ents, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}
