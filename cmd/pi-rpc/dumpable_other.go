//go:build !linux

package main

// hideProcess does nothing here: macOS already refuses another process's file descriptors
// (there is no /proc), and the rest is said in docs/permissions.md.
func hideProcess() error { return nil }
