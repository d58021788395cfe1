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

// liveFaults is the count of minor page faults a running process has taken so far (the
// tenth field of /proc/PID/stat, its threads' and its ended threads' together). On the
// benchmark's virtual machine a fault on a fresh page costs 10-45 µs, partly outside the
// process's CPU time, so an interval's faults say what its wall time has that its CPU does not.
func liveFaults(pid int) (int64, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces: count from its end.
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return 0, false
	}
	fields := bytes.Fields(data[end+1:])
	const minflt = 10 - 3 // field 10; fields[0] is field 3
	if len(fields) <= minflt {
		return 0, false
	}
	n, err := strconv.ParseInt(string(fields[minflt]), 10, 64)
	return n, err == nil
}
