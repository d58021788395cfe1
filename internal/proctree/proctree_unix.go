//go:build !windows

package proctree

import (
	"os"
	"syscall"
)

// Tree is a started command's process group.
type Tree struct{ pgid int }

// Prepare makes the command the leader of a new process group. suspended matters only on
// Windows.
func Prepare(attr *syscall.SysProcAttr, suspended bool) { attr.Setpgid = true }

// Attach returns the tree of p, a process started with [Prepare]: its process group.
func Attach(p *os.Process, suspended bool) (*Tree, error) { return &Tree{pgid: p.Pid}, nil }

// Terminate sends SIGTERM to the whole group.
func (t *Tree) Terminate() { _ = syscall.Kill(-t.pgid, syscall.SIGTERM) }

// Kill sends SIGKILL to the whole group.
func (t *Tree) Kill() { _ = syscall.Kill(-t.pgid, syscall.SIGKILL) }

// Alive reports whether any process of the group is left (zombies count).
func (t *Tree) Alive() bool { return syscall.Kill(-t.pgid, 0) == nil }

// Release does nothing on Unix: a process group needs no handle.
func (t *Tree) Release() {}
