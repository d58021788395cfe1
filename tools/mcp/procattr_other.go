//go:build !linux && !windows

package mcp

import "syscall"

// childAttrs puts a stdio server in its own process group, so Close can kill what it spawns.
// Only Linux can tie the server's life to pi-rpc's (see procattr_linux.go).
func childAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
