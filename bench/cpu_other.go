//go:build !linux

package main

import "time"

// liveCPU needs Linux's /proc/PID/task/*/schedstat; elsewhere the interval's CPU is not
// reported.
func liveCPU(int) (time.Duration, bool) { return 0, false }

// liveFaults needs Linux's /proc/PID/stat; elsewhere the interval's page faults are not
// reported.
func liveFaults(int) (int64, bool) { return 0, false }
