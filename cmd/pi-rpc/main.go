// Command pi-rpc runs an AI coding agent as a subprocess driven with JSON-RPC 2.0 over
// stdio. It is the only package that touches os.Stdin and os.Stdout; see docs/ for the
// protocol and configuration.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/internal/sandbox"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/rpc"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
	"github.com/pi-rpc/pi-rpc/tools"
)

// version, when set at build time with -ldflags "-X main.version=..." (make release), is the
// version reported; otherwise it comes from the build information (see buildVersion).
var version string

// flushTimeout bounds how long the writer may take to flush on exit.
const flushTimeout = 2 * time.Second

func main() {
	// The hidden first argument of the sandbox's launcher (internal to pi-rpc, before any
	// flag parsing): it confines itself and execs the model's command (internal/sandbox).
	if len(os.Args) > 1 && os.Args[1] == sandbox.LauncherArg {
		os.Exit(sandbox.Launch(os.Args[2:]))
	}
	// A write to a closed stdout must return EPIPE (handled like stdin EOF), not kill us.
	signal.Ignore(syscall.SIGPIPE)
	// The model's commands must not reach our stdin through /proc/<pid>/fd (see hideProcess).
	// A kernel that refuses it (a seccomp filter) is said, not fatal.
	if err := hideProcess(); err != nil {
		fmt.Fprintln(os.Stderr, "pi-rpc: warning: cannot make the process non-dumpable; commands the model runs can read its stdin through /proc:", err)
	}
	protoOut := os.Stdout
	// Anything a dependency prints with fmt.Print lands on stderr, never in the protocol.
	os.Stdout = os.Stderr
	os.Exit(run(os.Args[1:], os.Stdin, protoOut, os.Stderr, os.Getenv))
}

// run is the whole program; it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) > 0 && args[0] == "schema" {
		_, _ = stdout.Write(protocol.SchemaJSON())
		return 0
	}
	cfg, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "pi-rpc:", err)
		return 1
	}
	version := buildVersion(version, debug.ReadBuildInfo)
	if cfg.version {
		fmt.Fprintln(stdout, "pi-rpc", version)
		return 0
	}
	if cfg.protocol == "pi" {
		if getenv, err = applyPiConfig(cfg, getenv); err != nil {
			fmt.Fprintln(stderr, "pi-rpc:", err)
			return 1
		}
	}
	setup, err := setupAgent(cfg, getenv, time.Now())
	if err != nil {
		fmt.Fprintln(stderr, "pi-rpc:", err)
		return 1
	}
	if cfg.protocol == "pi" && (setup.provider == nil || len(setup.problems) > 0) {
		// pi exits before reading stdin when no model can be used.
		msg := "no provider is configured"
		if len(setup.problems) > 0 {
			msg = setup.problems[0].Message
		}
		fmt.Fprintln(stderr, "pi-rpc: No models available.", msg)
		return 1
	}
	log, closeLog, err := newLogger(cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "pi-rpc:", err)
		return 1
	}
	defer closeLog()
	defer captureLibraryLog(log)()
	if cfg.protocol == protocolACP {
		return runACP(cfg, setup, stdin, stdout, log, version)
	}
	sessions, err := openSessions(cfg, setup, "--session")
	if err != nil {
		fmt.Fprintln(stderr, "pi-rpc:", err)
		return 1
	}
	host, err := startMCP(cfg, setup, log)
	if err != nil {
		fmt.Fprintln(stderr, "pi-rpc:", err)
		return 1
	}
	defer host.close()
	logStartup(log, version, setup, sessions)
	if cfg.protocol == "pi" {
		for _, f := range cfg.piIgnored {
			log.Debug().Str("flag", f).Msg("pi flag ignored: pi-rpc has no such feature")
		}
		return servePi(cfg, setup, sessions, host, stdin, stdout, log)
	}
	return serve(cfg, setup, sessions, host, stdin, stdout, log, version)
}

// logStartup writes the one info line that says what this process is: version, protocol,
// model, working directory and session file; and each startup warning (the ones initialize
// reports too) at warn level.
func logStartup(log zerolog.Logger, version string, setup *agentSetup, sessions *startSessions) {
	ev := log.Info().Str("version", version).Int("protocol", protocol.ProtocolVersion)
	if setup.provider != nil {
		ev = ev.Str("model", setup.model.Provider+"/"+setup.model.ID)
	}
	ev = ev.Str("cwd", setup.cwd).Str("sessionId", sessions.store.SessionID())
	if f := sessions.store.File(); f != "" {
		ev = ev.Str("sessionFile", f)
	}
	for _, p := range setup.problems {
		ev = ev.Str("problem", p.Kind)
	}
	ev.Msg("pi-rpc started")
	for _, w := range setup.logWarnings {
		log.Warn().Msg(w)
	}
}

// serve runs the protocol until stdin ends, stdout breaks, a signal arrives or the client
// sends exit, then persists and exits.
func serve(cfg *config, setup *agentSetup, sessions *startSessions, host *mcpHost, stdin io.Reader, stdout io.Writer, log zerolog.Logger, version string) int {
	writer := rpc.NewWriter(stdout, 1<<20)
	problem := ""
	if len(setup.problems) > 0 {
		problem = setup.problems[0].Message
	}
	logSandbox(setup.sandbox, log)
	sessionHost := newSessionHost(cfg, setup, sessionOpener(cfg, setup, host, log))
	gate := host.newGate()
	sup := newSupervisor(cfg, setup, host.toolsWith(setup.tools, nil), problem, sessions, writer, sessionHost.IDs(), gate, log)
	host.attach(gate, sup, setup.tools, nil)
	sessionHost.Adopt(&session.Opened{Supervisor: sup, Cwd: setup.cwd, ContextFiles: setup.contextFiles})
	// The servers start while the protocol is served; their starts are mcp_server_status
	// events of the session (written once the client has spoken).
	host.start()
	server := rpc.NewServer(rpc.Options{
		MCP: host, Host: sessionHost, Writer: writer, In: stdin,
		FinishOnEOF: cfg.onEOF == "finish",
		Framing:     rpc.Framing(cfg.framing), MaxMessageBytes: cfg.maxMessageBytes,
		Logger: log, Version: version, Warnings: setup.warnings, Sandbox: setup.sandboxes,
	})
	life := watchProcess(log)
	defer life.stop()

	disconnected := server.Serve(context.Background())
	end, code := life.await(endings{input: server.InputClosed(), output: writer.Broken(), connection: disconnected, exit: server.Exit()})
	if end == endInput && cfg.onEOF == "finish" {
		// --on-eof finish: the busy period runs to its agent_settled, however long that takes
		// (the idle timer bounds a silent provider); a signal still ends the wait.
		if sigCode, signalled := life.untilSignal(func(ctx context.Context) {
			if err := server.WaitSettled(ctx); err != nil {
				log.Warn().Err(err).Msg("busy period did not finish")
			}
		}); signalled {
			code = sigCode
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := server.ShutdownSessions(ctx); err != nil {
		log.Warn().Err(err).Msg("shutdown")
	}
	// Requests still waiting (a waitSettled for an input that never came) end now.
	server.CancelAll()
	server.AwaitReplies(time.Second)
	server.Close()
	writer.Close(flushTimeout)
	return code
}

// shellRunner runs the user's own commands (the bash method) in the agent's directory with
// the tools package's runner: process group, throttled updates, tail truncation, kill on
// cancel.
func shellRunner(cwd, shell string, sb tools.Confinement) session.ShellRunner {
	return func(ctx context.Context, command string, timeout time.Duration, onUpdate, onChunk func(string)) (sessionapi.BashResult, error) {
		res, err := tools.RunShell(ctx, tools.ShellOptions{
			Command:  command,
			Dir:      cwd,
			Shell:    shell,
			Timeout:  timeout,
			OnUpdate: func(snap tools.ShellSnapshot) { onUpdate(snap.Output) },
			OnChunk:  onChunk,
			Sandbox:  sb,
		})
		return sessionapi.BashResult{Output: res.Output, ExitCode: res.ExitCode, Cancelled: res.Cancelled, Truncated: res.Truncated, FullOutputPath: res.FullOutputPath}, err
	}
}

// entryID returns a random 8-hex-digit session entry id (the store checks collisions).
func entryID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
