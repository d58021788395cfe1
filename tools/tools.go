package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"

	"github.com/pi-rpc/pi-rpc/core"
)

// Names lists every built-in tool, in the order they are offered to the model and named in
// the system prompt. pi enables read, bash, edit and write by default; pi-rpc enables all
// seven (docs/tools.md#selecting-tools).
var Names = []string{"read", "bash", "edit", "write", "grep", "find", "ls"}

// Options configure the tool set. Only Cwd is required.
type Options struct {
	// Cwd is the working directory paths are resolved against and writes are confined to.
	Cwd string
	// AllowOutsideCwd lifts the write confinement (--allow-outside-cwd). bash is never
	// confined.
	AllowOutsideCwd bool
	// Home is what "~" expands to; empty means os.UserHomeDir.
	Home string
	// TempDir receives bash full-output files; empty means os.TempDir.
	TempDir string
	// Shell runs bash commands with "-c"; empty means /bin/bash, else bash on PATH, else sh.
	Shell string
	// CommandPrefix is prepended to every bash command on its own line (pi's
	// shellCommandPrefix setting), e.g. "shopt -s expand_aliases".
	CommandPrefix string
	// Env is the environment of bash commands; nil means the server's environment.
	Env []string
	// Clock times the bash tool's throttled updates and kill timers; nil means the real clock.
	Clock clock.Clock
	// KillGrace is how long a cancelled command has between SIGTERM and SIGKILL; 0 means 50 ms.
	KillGrace time.Duration
	// UpdateInterval is the minimum spacing of bash progress updates; 0 means 100 ms.
	UpdateInterval time.Duration
	// NoImageResize sends images at their original size (pi's images.autoResize=false).
	NoImageResize bool
	// Access, when any of its fields is set, moves file text and commands to a client (an
	// ACP editor); the zero value is the disk and local processes.
	Access Access
	// Sandbox, when set (--sandbox), runs bash commands confined, locally even when Access
	// has a command runner, and refuses the writes it would refuse.
	Sandbox Confinement
}

// Confinement is an OS sandbox for commands and writes: internal/sandbox's Sandbox.
type Confinement interface {
	// Wrap returns the program and argv that run shell with args confined, adding what it
	// needs to attr; a notice, when set, is said in the result (a run the kernel could not
	// confine, under --sandbox-fallback warn). An error refuses the command.
	Wrap(shell string, args []string, attr *syscall.SysProcAttr) (path string, argv []string, notice string, err error)
	// CheckWrite refuses an absolute, resolved path the sandbox would not let a command write.
	CheckWrite(path string) error
	// Confines reports whether the sandbox is on now: a session's sandbox may be switched
	// off and on while it lives, and bash goes to Access's command runner (an editor's
	// terminal, which no sandbox confines) only while it is off.
	Confines() bool
}

// env is the resolved configuration every tool closes over.
type env struct {
	cwd             string
	home            string
	tempDir         string
	allowOutsideCwd bool
	opts            Options
}

func newEnv(opts Options) (*env, error) {
	if opts.Cwd == "" {
		return nil, fmt.Errorf("tools: Options.Cwd is required")
	}
	cwd, err := filepath.Abs(opts.Cwd)
	if err != nil {
		return nil, err
	}
	e := &env{cwd: cwd, home: opts.Home, tempDir: opts.TempDir, allowOutsideCwd: opts.AllowOutsideCwd, opts: opts}
	if e.home == "" {
		e.home, _ = os.UserHomeDir()
	}
	if e.tempDir == "" {
		e.tempDir = os.TempDir()
	}
	if e.opts.Clock == nil {
		e.opts.Clock = clock.System
	}
	return e, nil
}

// constructors are the tools New knows, by name: those of [Names] and the plan tool.
var constructors = map[string]func(*env) core.Tool{
	"read":       (*env).readTool,
	"write":      (*env).writeTool,
	"edit":       (*env).editTool,
	"bash":       (*env).bashTool,
	"grep":       (*env).grepTool,
	"find":       (*env).findTool,
	"ls":         (*env).lsTool,
	PlanToolName: func(*env) core.Tool { return PlanTool() },
}

// New builds the named tools, in the order given. A nil names means all of [Names]; an empty
// non-nil slice means none (--no-tools). An unknown name is an error that lists the valid
// ones, so a typo in --tools fails at startup rather than silently dropping a tool.
func New(names []string, opts Options) ([]core.Tool, error) {
	e, err := newEnv(opts)
	if err != nil {
		return nil, err
	}
	if names == nil {
		names = Names
	}
	out := make([]core.Tool, 0, len(names))
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		build, ok := constructors[n]
		if !ok {
			return nil, fmt.Errorf("unknown tool %q (valid tools: %s, %s)", n, strings.Join(Names, ", "), PlanToolName)
		}
		out = append(out, build(e))
	}
	return out, nil
}

// ParseNames splits a --tools value ("read,bash, edit") into names, dropping empty items.
func ParseNames(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// schema is a compact way to write the JSON schemas below; it panics on a typo at init.
// builtin is a built-in tool: its label is its name.
func builtin(name string, params json.RawMessage, run func(context.Context, core.ToolCall, func(core.ToolResult)) (core.ToolResult, error), description string) *core.FuncTool {
	return &core.FuncTool{ToolInfo: core.ToolInfo{Name: name, Label: name, Description: description, Parameters: params}, Run: run}
}

func schema(s string) json.RawMessage {
	if !json.Valid([]byte(s)) {
		panic("tools: invalid schema " + s)
	}
	return json.RawMessage(s)
}

// intArg reads an optional numeric argument; JSON numbers arrive as float64. Fractions are
// truncated as pi's slice arithmetic would floor them.
func intArg(v *float64, def int) int {
	if v == nil {
		return def
	}
	return int(*v)
}
