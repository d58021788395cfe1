package tools

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"

	"github.com/pi-rpc/pi-rpc/core"
)

func TestBash(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		opts    Options
		args    map[string]any
		want    string
		wantErr string
		wine    string // why the case is skipped under Wine, if it is
	}{
		{name: "echo", args: map[string]any{"command": "echo 'test output'"}, want: "test output\n"},
		{name: "no output", args: map[string]any{"command": "true"}, want: "(no output)"},
		{name: "stderr combined and ansi stripped", args: map[string]any{"command": `printf 'a\n' ; printf '\033[31mred\033[0m\r\n' >&2`}, want: "a\nred\n"},
		{name: "exit code", args: map[string]any{"command": "echo out; exit 1"}, wantErr: "out\n\n\nCommand exited with code 1"},
		{name: "exit code no output", args: map[string]any{"command": "exit 3"}, wantErr: "(no output)\n\nCommand exited with code 3"},
		{name: "timeout", args: map[string]any{"command": "echo started; sleep 5", "timeout": 0.2}, wantErr: "started\n\n\nCommand timed out after 0.2 seconds",
			wine: "0.2 s is less than a process start there; e2e's TestWindowsExeBashTimeout runs the timeout under Wine"},
		{name: "invalid timeout", args: map[string]any{"command": "true", "timeout": -1.0}, wantErr: "Invalid timeout: must be a finite number of seconds"},
		{name: "missing cwd", opts: Options{Cwd: filepath.Join(dir, "gone")}, args: map[string]any{"command": "true"}, wantErr: "Working directory does not exist: " + filepath.Join(dir, "gone") + "\nCannot execute bash commands."},
		{name: "bad shell", opts: Options{Cwd: dir, Shell: "/nonexistent/shell"}, args: map[string]any{"command": "true"}, wantErr: "ENOENT",
			wine: "on Windows a missing shell is reported as shellfind's \"shell not found\", naming shellPath"},
		{name: "command prefix", opts: Options{Cwd: dir, CommandPrefix: "echo prefix"}, args: map[string]any{"command": "echo cmd"}, want: "prefix\ncmd\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.wine != "" {
				testkit.SkipUnderWine(t, tc.wine)
			}
			opts := tc.opts
			if opts.Cwd == "" {
				opts.Cwd = dir
			}
			text, details, err := run(t, toolFor(t, "bash", opts), tc.args)
			if failedAsWanted(t, err, tc.wantErr) {
				return
			}
			if text != tc.want || details != nil {
				t.Errorf("text = %q details = %v, want %q and nil", text, details, tc.want)
			}
		})
	}
}

func TestBashTruncation(t *testing.T) {
	dir := t.TempDir()
	tmp := t.TempDir()
	tool := toolFor(t, "bash", Options{Cwd: dir, TempDir: tmp})
	t.Run("lines", func(t *testing.T) {
		text, details, err := run(t, tool, map[string]any{"command": "seq 1 3000"})
		if err != nil {
			t.Fatal(err)
		}
		d := details.(*BashDetails)
		if !strings.HasPrefix(text, "1001\n") || !strings.Contains(text, "3000\n\n[Showing lines 1001-3000 of 3000. Full output: "+d.FullOutputPath+"]") {
			t.Errorf("text = %q", clip(text))
		}
		if !strings.HasPrefix(filepath.Base(d.FullOutputPath), "pi-bash-") || filepath.Dir(d.FullOutputPath) != tmp {
			t.Errorf("fullOutputPath = %q", d.FullOutputPath)
		}
		if full := readFile(t, d.FullOutputPath); !strings.HasPrefix(full, "1\n2\n") || strings.Count(full, "\n") != 3000 {
			t.Errorf("full output has %d lines", strings.Count(full, "\n"))
		}
	})
	t.Run("bytes", func(t *testing.T) {
		text, details, err := run(t, tool, map[string]any{"command": "for i in $(seq 1 1000); do printf '%099d\\n' $i; done"})
		if err != nil {
			t.Fatal(err)
		}
		d := details.(*BashDetails)
		if *d.Truncation.TruncatedBy != "bytes" || !strings.Contains(text, "of 1000 (50.0KB limit). Full output: ") {
			t.Errorf("text tail = %q truncation = %+v", text[len(text)-120:], d.Truncation)
		}
	})
	t.Run("one huge line", func(t *testing.T) {
		testkit.SkipUnderWine(t, "it runs head, tr and /dev/zero, which the stand-in bash does not have")
		text, _, err := run(t, tool, map[string]any{"command": "head -c 60000 /dev/zero | tr '\\0' x"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, "[Showing last 50.0KB of line 1 (line is 58.6KB). Full output: ") {
			t.Errorf("text tail = %q", text[len(text)-120:])
		}
	})
}

func TestThrottle(t *testing.T) {
	clock := testkit.NewClock()
	acc := newOutputAccumulator(MaxLines, MaxBytes, t.TempDir())
	var got []string
	th := &throttle{clock: clock, interval: 100 * time.Millisecond, acc: acc, emit: func(s ShellSnapshot) { got = append(got, s.Output) }}
	feed := func(s string) { acc.append([]byte(s)); th.dirty() }
	feed("a\n") // first output goes out at once
	feed("b\n") // within 100 ms: deferred
	feed("c\n")
	clock.Advance(50 * time.Millisecond)
	if len(got) != 1 {
		t.Fatalf("updates after 50ms = %q, want 1", got)
	}
	clock.Advance(50 * time.Millisecond)
	feed("d\n")
	th.finish()
	feed("e\n") // after finish: dropped
	want := []string{"a\n", "a\nb\nc\n", "a\nb\nc\nd\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("updates = %q, want %q", got, want)
	}
}

func TestBashUpdates(t *testing.T) {
	tool := toolFor(t, "bash", Options{Cwd: t.TempDir()})
	var updates []core.ToolResult
	var mu sync.Mutex
	_, _, err := runCtx(context.Background(), t, tool, map[string]any{"command": "echo one; echo two"}, func(r core.ToolResult) {
		mu.Lock()
		updates = append(updates, r)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(updates) < 2 || len(updates[0].Content) != 0 {
		t.Fatalf("updates = %+v, want an empty first update then snapshots", updates)
	}
	if last := core.TextOf(updates[len(updates)-1].Content); last != "one\ntwo\n" {
		t.Errorf("last update = %q", last)
	}
}

func TestRunShellResult(t *testing.T) {
	dir := t.TempDir()
	var chunks strings.Builder
	res, err := RunShell(context.Background(), ShellOptions{Command: "echo hi; exit 4", Dir: dir, OnChunk: func(s string) { chunks.WriteString(s) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "hi\n" || res.ExitCode == nil || *res.ExitCode != 4 || res.Cancelled || res.Truncated || chunks.String() != "hi\n" {
		t.Errorf("res = %+v chunks = %q", res, chunks.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = RunShell(ctx, ShellOptions{Command: "echo never", Dir: dir})
	if err != nil || !res.Cancelled || res.ExitCode != nil {
		t.Errorf("pre-cancelled: res = %+v err = %v", res, err)
	}
	// A background process holding the pipe does not hang the command: the shell's exit ends
	// it (after drainGrace). Were RunShell to wait for the pipe's last holder, it would wait
	// for the sleep and the deadline, far beyond drainGrace and far short of the sleep, would
	// cancel it; the deadline is a bound on a hang, not on speed.
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err = RunShell(ctx, ShellOptions{Command: "sleep 30 & echo bg", Dir: dir})
	if err != nil || res.Output != "bg\n" || res.Cancelled {
		t.Errorf("background: res = %+v err = %v", res, err)
	}
}

func TestSanitizer(t *testing.T) {
	var s sanitizer
	in := [][]byte{[]byte("a\x1b[3"), []byte("1mred\x1b"), []byte("[0m\r\n\xe2\x82"), []byte("\xac\x07\x00ok\x1b]0;title\x07!")}
	var out []byte
	for _, p := range in {
		out = append(out, s.write(p, false)...)
	}
	out = append(out, s.write(nil, true)...)
	if got, want := string(out), "ared\n€ok!"; got != want {
		t.Errorf("sanitized = %q, want %q", got, want)
	}
}
