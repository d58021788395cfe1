//go:build !linux

package main

import "time"

// liveCPU needs Linux's /proc/PID/task/*/schedstat; elsewhere the interval's CPU is not
// reported.
func liveCPU(int) (time.Duration, bool) { return 0, false }
