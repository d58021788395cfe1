//go:build !windows

package tools

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// maxFinalDrain bounds what [drainBuffered] reads, so that a background process that keeps
// writing cannot hold the command open.
const maxFinalDrain = 1 << 20

// drainBuffered reads what the pipe holds at once, without waiting: the output the shell and
// its children wrote before they exited but the reader had not reached when drainGrace ran
// out (on a loaded machine the reading goroutine may not run for longer than the grace). A
// read deadline that has passed fails every read before it reaches the pipe, so the deadline
// is cleared and the descriptor, non-blocking under Go's poller, is read until it is empty,
// at its end, or maxFinalDrain has been read.
func drainBuffered(pr *os.File, buf []byte, add func([]byte)) {
	if err := pr.SetReadDeadline(time.Time{}); err != nil {
		return
	}
	rc, err := pr.SyscallConn()
	if err != nil {
		return
	}
	for total := 0; total < maxFinalDrain; {
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), buf)
			return true // one attempt: never park waiting for more
		}); err != nil || n <= 0 || (rerr != nil && !errors.Is(rerr, syscall.EINTR)) {
			return
		}
		add(buf[:n])
		total += n
	}
}
