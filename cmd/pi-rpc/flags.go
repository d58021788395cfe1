package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// config is the command line.
type config struct {
	provider           string
	api                string
	model              string
	baseURL            string
	modelsFile         string
	fauxScript         string
	idleTimeout        time.Duration
	contextWindow      int
	systemPrompt       string
	appendSystemPrompt string
	noContextFiles     bool
	thinking           string
	cwd                string
	tools              string
	toolsSet           bool
	noTools            bool
	allowOutsideCwd    bool
	sandbox            sandboxFlags
	resources          resourceFlags
	framing            string
	maxMessageBytes    int
	maxSessions        int
	onEOF              string
	approval           string
	noSession          bool
	sessionDir         string
	sessionRef         string
	sessionID          string
	sessionName        string
	continueRecent     bool
	fsync              string
	logLevel           string
	logFile            string
	version            bool
	mcpConfigs         []string
	mcpTimeout         time.Duration
	// protocol is the front end: "jsonrpc" (the default), "pi" (--protocol pi or --mode rpc)
	// or "acp" (acp.go).
	protocol        string
	mode            string
	approvalTimeout time.Duration
	// piIgnored are the pi flags accepted and ignored in pi mode.
	piIgnored []string
	// piScope and piSettings are pi's --models patterns and settings.json (pi mode).
	piScope    []string
	piSettings *piSettings
	// logLevelSet says --log-level was given (ACP mode's default differs, logging.go).
	logLevelSet bool
}

const usageText = `pi-rpc runs an AI coding agent that other programs drive with JSON-RPC 2.0 over stdio.
stdout carries only protocol messages; logs go to stderr (or --log-file).

Usage:
  pi-rpc [flags]        serve the protocol on stdin/stdout
  pi-rpc schema         print the protocol's JSON schema
  pi-rpc --version      print the version

Flags:
`

const usageFooter = `
Examples:
  OPENAI_API_KEY=sk-... pi-rpc --model gpt-4.1-mini
  pi-rpc --base-url http://localhost:8080/v1 --model qwen2.5-coder    # local server, no key
  pi-rpc --models ~/my-models.json --model ollama/llama3.1:8b
  pi-rpc --provider faux --faux-script turns.json --no-session        # offline, scripted
  OPENAI_API_KEY=sk-... pi-rpc --api responses --model o4-mini         # the Responses API
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"prompt","params":{"message":"hi"}}' | pi-rpc --on-eof finish

Environment:
  OPENAI_API_KEY    key for the openai provider (makes openai the default provider)
  OPENAI_BASE_URL   API root when --base-url is not given (a named server needs no key)
  ANTHROPIC_API_KEY key for the anthropic provider (Claude)
  GEMINI_API_KEY    key for the google provider (Gemini); GOOGLE_API_KEY when it is not set
  AZURE_OPENAI_API_KEY, AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME,
  AZURE_OPENAI_API_VERSION (default v1), AZURE_OPENAI_DEPLOYMENT_NAME_MAP (model=deployment,...)
                    the azure-openai-responses provider (Azure OpenAI)
  PI_RPC_HOME       home directory (default ~/.pi-rpc): models.json, sessions, AGENTS.md
  $VAR in models.json apiKey and headers values is read from the environment.

Startup errors (bad flags, unreadable files) exit with status 1 before stdin is read.
Documentation: docs/configuration.md, docs/protocol.md, docs/testing.md.
`

// parseFlags parses args (without the program name). --help prints the usage to helpOut
// and returns flag.ErrHelp; any other error is one line naming the flag.
func parseFlags(args []string, helpOut io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("pi-rpc", flag.ContinueOnError)
	// The flag package's own messages (the error, then the whole usage) are replaced by one
	// line returned to the caller.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	c.registerAgentFlags(fs)
	c.registerConnectionFlags(fs)
	c.registerSessionFlags(fs)
	c.registerProcessFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, parseError(fs, err, helpOut)
	}
	fs.Visit(func(f *flag.Flag) {
		c.logLevelSet = c.logLevelSet || f.Name == "log-level"
		c.sandbox.noteGiven(f.Name)
	})
	if c.mode == "rpc" {
		c.protocol = "pi"
	}
	if fs.NArg() > 0 {
		if c.protocol == "pi" && strings.HasPrefix(fs.Arg(0), "@") {
			return nil, errors.New("@file arguments are not supported in RPC mode")
		}
		return nil, fmt.Errorf("unexpected argument %q (see pi-rpc --help)", fs.Arg(0))
	}
	return c, c.validate()
}

// registerAgentFlags declares the flags of the agent: its model and provider, its system prompt,
// its tools, their sandbox and its resources.
func (c *config) registerAgentFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.provider, "provider", "", "model provider: openai (default when OPENAI_API_KEY is set), anthropic (default when only ANTHROPIC_API_KEY is set), google (default when only GEMINI_API_KEY or GOOGLE_API_KEY is set), azure-openai-responses (Azure OpenAI) or faux")
	fs.StringVar(&c.api, "api", "", "API of the openai provider: completions (Chat Completions, the default) or responses (the Responses API)")
	fs.StringVar(&c.model, "model", "", "model id, or provider/id for a models.json provider")
	fs.StringVar(&c.baseURL, "base-url", "", "API root of the --provider endpoint (default $OPENAI_BASE_URL or https://api.openai.com/v1; with --provider anthropic $ANTHROPIC_BASE_URL or https://api.anthropic.com; with --provider google https://generativelanguage.googleapis.com/v1beta; with --provider azure-openai-responses $AZURE_OPENAI_BASE_URL)")
	fs.StringVar(&c.modelsFile, "models", "", "models.json with extra providers and models (default $PI_RPC_HOME/models.json if present)")
	fs.StringVar(&c.fauxScript, "faux-script", "", "script file for --provider faux")
	fs.DurationVar(&c.idleTimeout, "idle-timeout", 120*time.Second, "fail a model request after this long without data")
	fs.IntVar(&c.contextWindow, "context-window", 0, "context window of a model unknown to the catalogue")
	fs.StringVar(&c.systemPrompt, "system-prompt", "", "replace the default system prompt")
	fs.StringVar(&c.appendSystemPrompt, "append-system-prompt", "", "text appended to the system prompt")
	fs.BoolVar(&c.noContextFiles, "no-context-files", false, "do not add AGENTS.md / CLAUDE.md files to the system prompt")
	fs.StringVar(&c.thinking, "thinking", "", "thinking level: off, minimal, low, medium, high, xhigh (default medium, clamped to the model)")
	fs.StringVar(&c.cwd, "cwd", "", "working directory of the agent (default the current directory)")
	fs.Func("tools", "comma-separated tools to enable (default all: read,bash,edit,write,grep,find,ls)", func(v string) error {
		c.tools, c.toolsSet = v, true
		return nil
	})
	fs.BoolVar(&c.noTools, "no-tools", false, "enable no tools")
	fs.BoolVar(&c.allowOutsideCwd, "allow-outside-cwd", false, "let write and edit change files outside --cwd")
	c.sandbox.register(fs)
	c.resources.register(fs)
}

// registerConnectionFlags declares the flags of the protocol and the connection, pi's
// flags that pi mode accepts among them.
func (c *config) registerConnectionFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.framing, "framing", "auto", "message framing: auto, ndjson or lsp (Content-Length headers)")
	fs.IntVar(&c.maxMessageBytes, "max-message-bytes", 64<<20, "largest accepted message")
	fs.IntVar(&c.maxSessions, "max-sessions", 16, "most sessions open at once on the connection (the first one and those createSession opens)")
	fs.StringVar(&c.onEOF, "on-eof", "abort", "when stdin ends: abort the busy period, or finish it first")
	fs.StringVar(&c.approval, "approval", "", "tool approval: auto, ask (the client approves write, edit and bash) or deny-writes; default ask if the client declares the permissions capability, else auto")
	fs.StringVar(&c.protocol, "protocol", "jsonrpc", "wire protocol: jsonrpc (docs/protocol.md), pi (pi's RPC mode, docs/pi-compat.md) or acp (the Agent Client Protocol for editors, docs/editors.md)")
	fs.StringVar(&c.mode, "mode", "", "pi's flag: --mode rpc is --protocol pi")
	fs.DurationVar(&c.approvalTimeout, "approval-timeout", 0, "pi mode: refuse a tool when its confirm dialog has no answer within this long (default: wait)")
	for _, name := range []string{"no-themes", "no-extensions", "offline"} {
		fs.BoolFunc(name, "pi flag, accepted and ignored in pi mode", func(string) error {
			c.piIgnored = append(c.piIgnored, "--"+name)
			return nil
		})
	}
	fs.Func("extension", "pi flag, accepted and ignored in pi mode", func(v string) error {
		c.piIgnored = append(c.piIgnored, "--extension "+v)
		return nil
	})
}

// registerSessionFlags declares the flags that choose, name and store the session.
func (c *config) registerSessionFlags(fs *flag.FlagSet) {
	fs.BoolVar(&c.noSession, "no-session", false, "keep the session in memory only")
	fs.StringVar(&c.sessionDir, "session-dir", "", "directory for session files (default $PI_RPC_HOME/sessions/<encoded cwd>)")
	fs.StringVar(&c.sessionRef, "session", "", "resume a session: a session file, or a session id or unique prefix of one")
	fs.StringVar(&c.sessionID, "session-id", "", "open this cwd's session with this id, or start a new session with it (pi 1.6.0's --session-id)")
	fs.StringVar(&c.sessionName, "name", "", "display name of the session (pi's --name)")
	fs.StringVar(&c.sessionName, "n", "", "short for --name")
	fs.BoolVar(&c.continueRecent, "continue", false, "resume the most recent session of this directory that no other process holds")
	fs.StringVar(&c.fsync, "fsync", "settled", "when session files are synced: settled (after agent_settled, on switch and at exit) or entry (every entry)")
}

// registerProcessFlags declares the flags of the process: logging, --version and the MCP servers.
func (c *config) registerProcessFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.logLevel, "log-level", "info", "log level: debug, info, warn, error (with --protocol acp and no --log-file: warn unless given)")
	fs.StringVar(&c.logFile, "log-file", "", "write logs to this file instead of stderr")
	fs.BoolVar(&c.version, "version", false, "print the version and exit")
	fs.Func("mcp-config", "MCP servers file ({\"mcpServers\": {...}}, see docs/mcp.md), added to $PI_RPC_HOME/mcp.json; repeatable, later files win", func(v string) error {
		c.mcpConfigs = append(c.mcpConfigs, v)
		return nil
	})
	fs.DurationVar(&c.mcpTimeout, "mcp-timeout", 60*time.Second, "fail an MCP tool call, or a server's start, after this long")
}

// parseError is what a failed parse returns: for -help the usage, written to helpOut, and
// flag.ErrHelp; otherwise the flag package's message as one line.
func parseError(fs *flag.FlagSet, err error, helpOut io.Writer) error {
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(helpOut)
		_, _ = io.WriteString(helpOut, usageText)
		fs.PrintDefaults()
		_, _ = io.WriteString(helpOut, usageFooter)
		return flag.ErrHelp
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		msg = "unknown flag " + name
	}
	return fmt.Errorf("%s (see pi-rpc --help)", msg)
}

func (c *config) validate() error {
	var errs []error
	errs = append(errs, c.modelFlagErrors()...)
	errs = append(errs, c.frontEndFlagErrors()...)
	errs = append(errs, c.limitFlagErrors()...)
	errs = append(errs, c.sessionFlagErrors()...)
	if c.noTools && c.toolsSet {
		errs = append(errs, errors.New("--tools and --no-tools cannot be used together"))
	}
	errs = append(errs, c.validateACP()...)
	return errors.Join(errs...)
}

// modelFlagErrors checks --provider, --api and --faux-script.
func (c *config) modelFlagErrors() []error {
	var errs []error
	switch c.provider {
	case "", "openai", "anthropic", "google", "azure-openai-responses", "faux":
	default:
		// pi mode: --provider names a models.json provider (applyPiConfig).
		if c.protocol != "pi" {
			errs = append(errs, fmt.Errorf("--provider: unknown provider %q (use openai, anthropic, google, azure-openai-responses or faux)", c.provider))
		}
	}
	switch c.api {
	case "", "completions", "openai-completions", "responses", "openai-responses":
		if c.api != "" && c.provider != "" && c.provider != "openai" {
			errs = append(errs, fmt.Errorf("--api applies to --provider openai, not %s", c.provider))
		}
	default:
		errs = append(errs, fmt.Errorf("--api: expected completions or responses, got %q", c.api))
	}
	if c.provider == "faux" && c.fauxScript == "" {
		errs = append(errs, errors.New("--provider faux needs --faux-script FILE"))
	}
	return errs
}

// frontEndFlagErrors checks the flags of the protocol and its connection: --mode, --protocol,
// the pi-only flags, --approval-timeout, --framing, --approval and --on-eof.
func (c *config) frontEndFlagErrors() []error {
	var errs []error
	switch c.mode {
	case "", "rpc":
	default:
		errs = append(errs, fmt.Errorf("--mode: pi-rpc has only pi's rpc mode, got %q", c.mode))
	}
	errs = checkFlagValue(errs, "--protocol", c.protocol, "jsonrpc", "pi", protocolACP)
	if c.protocol != "pi" && len(c.piIgnored) > 0 {
		errs = append(errs, fmt.Errorf("%s: only accepted with --mode rpc", strings.Fields(c.piIgnored[0])[0]))
	}
	if c.approvalTimeout < 0 {
		errs = append(errs, fmt.Errorf("--approval-timeout: must not be negative, got %s", c.approvalTimeout))
	}
	errs = checkFlagValue(errs, "--framing", c.framing, "auto", "ndjson", "lsp")
	errs = checkFlagValue(errs, "--approval", c.approval, "", "auto", "ask", "deny-writes")
	return checkFlagValue(errs, "--on-eof", c.onEOF, "abort", "finish")
}

// limitFlagErrors checks the levels and limits: --thinking, --log-level, --mcp-timeout,
// --max-message-bytes, --max-sessions and --fsync.
func (c *config) limitFlagErrors() []error {
	var errs []error
	errs = checkFlagValue(errs, "--thinking", c.thinking, "", "off", "minimal", "low", "medium", "high", "xhigh")
	if levels := []string{"debug", "info", "warn", "error"}; !slices.Contains(levels, strings.ToLower(c.logLevel)) {
		errs = append(errs, unexpected("--log-level", c.logLevel, levels))
	}
	if c.mcpTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--mcp-timeout: must be positive, got %s", c.mcpTimeout))
	}
	if c.maxMessageBytes < 1024 {
		errs = append(errs, fmt.Errorf("--max-message-bytes: must be at least 1024, got %d", c.maxMessageBytes))
	}
	if c.maxSessions < 1 {
		errs = append(errs, fmt.Errorf("--max-sessions: must be at least 1, got %d", c.maxSessions))
	}
	return checkFlagValue(errs, "--fsync", c.fsync, "settled", "entry")
}

// checkFlagValue appends to errs the error of a flag whose value got is not one of allowed; ""
// among allowed means the flag may be left unset.
func checkFlagValue(errs []error, flag, got string, allowed ...string) []error {
	if slices.Contains(allowed, got) {
		return errs
	}
	return append(errs, unexpected(flag, got, allowed))
}

// unexpected says which values a flag takes: `--framing: expected auto, ndjson or lsp, got
// "x"` (the unset value "" is not listed).
func unexpected(flag, got string, allowed []string) error {
	named := slices.DeleteFunc(slices.Clone(allowed), func(v string) bool { return v == "" })
	list := named[len(named)-1]
	if len(named) > 1 {
		list = strings.Join(named[:len(named)-1], ", ") + " or " + list
	}
	return fmt.Errorf("%s: expected %s, got %q", flag, list, got)
}

// sessionFlagErrors checks that --no-session, --session, --continue and --session-id do not
// contradict each other, and that --session-id is a usable id.
func (c *config) sessionFlagErrors() []error {
	var errs []error
	if c.noSession && (c.sessionRef != "" || c.continueRecent) {
		errs = append(errs, errors.New("--no-session cannot be used with --session or --continue"))
	}
	if c.sessionRef != "" && c.continueRecent {
		errs = append(errs, errors.New("--session and --continue cannot be used together"))
	}
	if c.sessionID != "" && (c.sessionRef != "" || c.continueRecent) {
		errs = append(errs, errors.New("--session-id cannot be used with --session or --continue"))
	}
	if strings.ContainsAny(c.sessionID, "/\\ \t\n") {
		errs = append(errs, fmt.Errorf("--session-id: %q is not a valid session id", c.sessionID))
	}
	return errs
}
