package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// liveCPU is the CPU time a running process's threads have had so far: the first field of
// each /proc/PID/task/TID/schedstat (nanoseconds on a CPU), summed. It reads the clock the
// scheduler keeps, so an interval as short as one getEntries call is measured in
// nanoseconds rather than in /proc/PID/stat's 10 ms ticks.
func liveCPU(pid int) (time.Duration, bool) {
	tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "schedstat"))
	if err != nil || len(tasks) == 0 {
		return 0, false
	}
	var total time.Duration
	for _, path := range tasks {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // a thread that ended between the glob and the read
		}
		field, _, _ := bytes.Cut(data, []byte{' '})
		ns, err := strconv.ParseInt(string(field), 10, 64)
		if err != nil {
			return 0, false
		}
		total += time.Duration(ns)
	}
	return total, true
}
