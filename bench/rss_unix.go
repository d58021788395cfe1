//go:build !windows

package main

import (
	"os"
	"syscall"
)

// maxRSS is wait4's ru_maxrss of an exited process, in bytes (kilobytes on Linux).
func maxRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return ru.Maxrss * 1024, true
}
