//go:build windows

package main

// pi-rpc relies on process groups, SIGPIPE and POSIX signals; it supports Linux and macOS.
// This reference makes a Windows build fail with a message instead of half-working.
var _ = pi_rpc_supports_only_linux_and_macos_not_windows_yet
