package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"
)

// Access routes what the tools read, write and run away from the local disk and processes,
// to a client that serves them: an ACP editor's buffers and terminals (docs/editors.md,
// "Editor files and terminals"). Each nil field keeps the default: the tools read and write
// the disk themselves and bash runs a local process group ([RunShell]).
//
// What does not move: paths are still resolved against the working directory, writes and
// edits are still confined to it and serialised per real path, and a path that exists on
// disk as something other than a regular file is still refused before the client is asked.
type Access struct {
	// Reader, when set, serves the text read returns and, when Writer is set too, the text
	// edit changes. Images and binary files are still read from disk.
	Reader TextReader
	// Writer, when set, receives the text write puts in a file and, when Reader is set too,
	// the text edit makes. Nothing is written to disk then.
	Writer TextWriter
	// Commands, when set, runs bash commands instead of a local process group.
	Commands CommandRunner
}

// TextFile is one file of one tool call.
type TextFile struct {
	// ToolCallID is the call reading or writing it.
	ToolCallID string
	// Path is absolute and cleaned ("~" and "@" expanded), with symlinks left as named: the
	// path as the editor knows it.
	Path string
}

// TextReader serves the text of files.
type TextReader interface {
	// ReadText returns the whole text of f. The error's message is what the model sees after
	// the tool's own words; an error once ctx is done is an abort.
	ReadText(ctx context.Context, f TextFile) (string, error)
}

// TextWriter receives the text of files.
type TextWriter interface {
	// WriteText replaces the text of f (creating the file) with content. Errors are as for
	// [TextReader.ReadText].
	WriteText(ctx context.Context, f TextFile, content string) error
}

// CommandRunner runs bash commands somewhere other than a local process group.
type CommandRunner interface {
	// RunCommand runs c until it exits, is cancelled (ctx) or times out, and returns what it
	// printed. The error is for a command that could not be started; its message is what the
	// model sees.
	RunCommand(ctx context.Context, c Command) (CommandOutput, error)
}

// Command is one bash command for a [CommandRunner].
type Command struct {
	// ToolCallID is the bash call running it.
	ToolCallID string
	// Shell and Args are the program and its arguments: the bash tool's shell, "-c" and the
	// command (with the command prefix).
	Shell string
	Args  []string
	// Dir is the working directory.
	Dir string
	// Env is the environment the tools were configured with; nil means the runner's own.
	Env []string
	// Timeout, when positive, ends the command as timed out after this long on Clock.
	Timeout time.Duration
	Clock   clock.Clock
	// OutputLimit is the most output, in bytes, the runner needs to keep: the tail.
	OutputLimit int
}

// CommandOutput is how a [Command] ended.
type CommandOutput struct {
	// Output is the combined output the runner kept, as the command wrote it.
	Output string
	// Truncated reports that the runner dropped the start of the output.
	Truncated bool
	// ExitCode is nil when the command did not exit by itself (a signal).
	ExitCode *int
	// Cancelled and TimedOut say why the command was stopped.
	Cancelled, TimedOut bool
}

// CommandOutputLimit is the output a [CommandRunner] is asked to keep: enough that the
// bash tool's tail (2,000 lines or 50 KB) and its full-output file are exact for any
// command printing less.
const CommandOutputLimit = 1 << 20

// accessError words a failed client read or write for the model: what failed and the
// client's reason, or pi's "Operation aborted" once the call was aborted.
func accessError(ctx context.Context, err error, format string, args ...any) error {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return errAborted
	}
	return fmt.Errorf(format+": %v", append(args, err)...)
}
