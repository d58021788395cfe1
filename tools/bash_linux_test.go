package tools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

// TestBashCancelKillsProcessTree starts grandchildren (one ignoring SIGTERM), cancels,
// and checks the process table: no process of the group, and none of the recorded pids,
// survives.
func TestBashCancelKillsProcessTree(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	tool := toolFor(t, "bash", Options{Cwd: dir})
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once sync.Once
	cmd := `(sleep 100 & echo $! >> pids; bash -c 'trap "" TERM; sleep 100 & echo $! >> pids; wait' & echo $! >> pids; wait) & echo $$ >> pids; until [ "$(wc -l < pids)" -ge 4 ]; do sleep 0.01; done; echo ready; wait`
	errc := make(chan error, 1)
	go func() {
		_, _, err := runCtx(ctx, t, tool, map[string]any{"command": cmd}, func(r core.ToolResult) {
			if strings.Contains(core.TextOf(r.Content), "ready") {
				once.Do(func() { close(started) })
			}
		})
		errc <- err
	}()
	<-started
	pids := readPids(t, pidFile)
	if len(pids) < 4 {
		t.Fatalf("pids = %v, want 4", pids)
	}
	cancel()
	err := <-errc
	if err == nil || !strings.HasSuffix(err.Error(), "Command aborted") {
		t.Fatalf("error = %v, want Command aborted", err)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("pid %d survived cancellation", pid)
		}
	}
}

func readPids(t *testing.T, p string) []int {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// alive reads /proc: a zombie (state Z) is dead, it only awaits reaping by init.
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
