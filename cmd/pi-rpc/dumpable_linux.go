//go:build linux

package main

import "syscall"

// hideProcess makes pi-rpc non-dumpable (prctl PR_SET_DUMPABLE 0). The kernel then refuses
// /proc/<pid>/fd, /proc/<pid>/environ, /proc/<pid>/mem and ptrace to every process without
// CAP_SYS_PTRACE, including the commands the model runs as the same user: without it,
// `cat /proc/$PPID/fd/0` in the bash tool reopened pi-rpc's stdin and took the client's
// requests (docs/permissions.md, "What a command can reach"). Commands pi-rpc starts are
// dumpable again after their exec, so this changes nothing for them; it also turns off core
// dumps of pi-rpc itself.
func hideProcess() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); errno != 0 {
		return errno
	}
	return nil
}
