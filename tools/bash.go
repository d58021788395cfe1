package tools

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
)

var bashSchema = schema(`{"type":"object","properties":{
"command":{"type":"string","description":"Bash command to execute"},
"timeout":{"type":"number","description":"Timeout in seconds (optional, no default timeout)"}},
"required":["command"]}`)

// BashDetails is the details of a bash result or update: set only when the output was
// truncated, pointing at the file with all of it.
type BashDetails struct {
	Truncation     *Truncation `json:"truncation,omitempty"`
	FullOutputPath string      `json:"fullOutputPath,omitempty"`
}

func (e *env) bashTool() core.Tool {
	return builtin("bash", bashSchema, e.runBash,
		fmt.Sprintf("Execute a bash command in the current working directory. Returns stdout and stderr. "+
			"Output is truncated to last %d lines or %dKB (whichever is hit first). If truncated, full output is saved to a temp file. "+
			"Optionally provide a timeout in seconds.", MaxLines, MaxBytes/1024))
}

// maxTimeoutSeconds is pi's bound (the largest JavaScript timer).
const maxTimeoutSeconds = 2147483.647

func (e *env) runBash(ctx context.Context, call core.ToolCall, update func(core.ToolResult)) (core.ToolResult, error) {
	var in struct {
		Command string   `json:"command"`
		Timeout *float64 `json:"timeout"`
	}
	if err := call.Decode(&in); err != nil {
		return core.ToolResult{}, err
	}
	var timeout time.Duration
	if in.Timeout != nil {
		t := *in.Timeout
		if math.IsNaN(t) || math.IsInf(t, 0) || t <= 0 {
			return core.ToolResult{}, errors.New("Invalid timeout: must be a finite number of seconds")
		}
		if t > maxTimeoutSeconds {
			return core.ToolResult{}, fmt.Errorf("Invalid timeout: maximum is %s seconds", jsNumber(maxTimeoutSeconds))
		}
		timeout = time.Duration(t * float64(time.Second))
	}
	command := in.Command
	if e.opts.CommandPrefix != "" {
		command = e.opts.CommandPrefix + "\n" + command
	}
	if update != nil {
		update(core.ToolResult{Content: []core.Content{}})
	}
	so := ShellOptions{
		Command: command, Dir: e.cwd, Env: e.opts.Env, Shell: e.opts.Shell, Timeout: timeout,
		UpdateInterval: e.opts.UpdateInterval, KillGrace: e.opts.KillGrace, TempDir: e.tempDir, Clock: e.opts.Clock,
		Sandbox: e.opts.Sandbox,
	}
	if update != nil {
		so.OnUpdate = func(s ShellSnapshot) {
			var d *BashDetails
			if s.Truncation.Truncated || s.FullOutputPath != "" {
				d = &BashDetails{FullOutputPath: s.FullOutputPath}
				if s.Truncation.Truncated {
					t := s.Truncation
					d.Truncation = &t
				}
			}
			r := core.ToolResult{Content: []core.Content{core.TextBlock(s.Output)}}
			if d != nil {
				r.Details = d
			}
			update(r)
		}
	}
	var res ShellResult
	var err error
	if r := e.opts.Access.Commands; r != nil && (e.opts.Sandbox == nil || !e.opts.Sandbox.Confines()) {
		res, err = e.runCommand(ctx, r, call.ID, so)
	} else {
		res, err = RunShell(ctx, so)
	}
	if err != nil {
		return core.ToolResult{}, err
	}
	switch {
	case res.Cancelled:
		text, _ := formatBashOutput(res, "")
		return core.ToolResult{}, errors.New(appendStatus(text, "Command aborted"))
	case res.TimedOut:
		text, _ := formatBashOutput(res, "")
		return core.ToolResult{}, errors.New(appendStatus(text, fmt.Sprintf("Command timed out after %s seconds", jsNumber(*in.Timeout))))
	}
	text, details := formatBashOutput(res, "(no output)")
	if res.ExitCode != nil && *res.ExitCode != 0 {
		return core.ToolResult{}, errors.New(appendStatus(text, fmt.Sprintf("Command exited with code %d", *res.ExitCode)))
	}
	r := core.ToolResult{Content: []core.Content{core.TextBlock(text)}}
	if details != nil {
		r.Details = details
	}
	return r, nil
}

// runCommand runs a bash command through a [CommandRunner] (an editor's terminal, which
// shows it live) and shapes what it kept like [RunShell]'s result: sanitized, tail-truncated
// to 2,000 lines or 50 KB, with a full-output file past those limits, so the model sees what
// a local run would show. Output the runner itself dropped is said to be missing.
func (e *env) runCommand(ctx context.Context, r CommandRunner, callID string, so ShellOptions) (ShellResult, error) {
	if ctx.Err() != nil {
		return ShellResult{Cancelled: true}, nil //nolint:nilerr // cancellation is a result, as in RunShell.
	}
	if !dirExists(so.Dir) {
		return ShellResult{}, fmt.Errorf("Working directory does not exist: %s\nCannot execute bash commands.", so.Dir)
	}
	shell, err := resolveShell(so.Shell)
	if err != nil {
		return ShellResult{}, err
	}
	out, err := r.RunCommand(ctx, Command{
		ToolCallID: callID, Shell: shell, Args: []string{"-c", so.Command}, Dir: so.Dir, Env: so.Env,
		Timeout: so.Timeout, Clock: e.opts.Clock, OutputLimit: CommandOutputLimit,
	})
	if err != nil {
		if ctx.Err() != nil {
			return ShellResult{Cancelled: true}, nil //nolint:nilerr // a start cut short by an abort is a cancelled run.
		}
		return ShellResult{}, err
	}
	var san sanitizer
	acc := newOutputAccumulator(MaxLines, MaxBytes, e.tempDir)
	acc.append(san.write([]byte(out.Output), true))
	acc.finish()
	snap := acc.snapshot()
	return ShellResult{
		Output: snap.Output, ExitCode: out.ExitCode, Cancelled: out.Cancelled, TimedOut: out.TimedOut,
		Truncated: snap.Truncation.Truncated || out.Truncated, Truncation: snap.Truncation,
		FullOutputPath: snap.FullOutputPath, LastLineBytes: acc.lastLineBytes(), Dropped: out.Truncated,
	}, nil
}

func appendStatus(text, status string) string {
	if text == "" {
		return status
	}
	return text + "\n\n" + status
}

// formatBashOutput adds pi's truncation notice, naming the full-output file.
func formatBashOutput(res ShellResult, empty string) (string, *BashDetails) {
	text := res.Output
	if text == "" {
		text = empty
	}
	t := res.Truncation
	if !t.Truncated {
		if res.Dropped {
			text = appendStatus(text, droppedNotice)
		}
		return text, nil
	}
	start := t.TotalLines - t.OutputLines + 1
	end := t.TotalLines
	switch {
	case t.LastLinePartial:
		text += fmt.Sprintf("\n\n[Showing last %s of line %d (line is %s). Full output: %s]", formatSize(t.OutputBytes), end, formatSize(res.LastLineBytes), res.FullOutputPath)
	case t.TruncatedBy != nil && *t.TruncatedBy == "lines":
		text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d. Full output: %s]", start, end, t.TotalLines, res.FullOutputPath)
	default:
		text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d (%s limit). Full output: %s]", start, end, t.TotalLines, formatSize(MaxBytes), res.FullOutputPath)
	}
	if res.Dropped {
		text += "\n" + droppedNotice
	}
	return text, &BashDetails{Truncation: &t, FullOutputPath: res.FullOutputPath}
}

// droppedNotice follows the output of a command whose runner (an editor's terminal) kept
// only the end of it: the line counts and the full-output file cover what it kept.
const droppedNotice = "[The editor's terminal kept only the end of the output; earlier output is not available.]"
