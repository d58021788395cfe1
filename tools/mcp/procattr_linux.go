//go:build linux

package mcp

import "syscall"

// childAttrs puts a stdio server in its own process group (so Close can kill what it spawns)
// and has the kernel send it SIGTERM if pi-rpc dies without closing it (a SIGKILL, an OOM
// kill): its stdin then closes too, but a server that does not read stdin would otherwise be
// left running. The signal reaches the server itself, not what it spawned.
func childAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
