package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pi-rpc/pi-rpc/clients/go"
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// fauxScript is the scripted model of the offline demo: one response per model call, in the
// order the scenario below makes them.
//
//go:embed script.json
var fauxScript []byte

const (
	notesText  = "Shoping list\n- milk\n- eggs\n"
	reviewText = "Fix the spelling of the title.\n"
)

// config says which pi-rpc to drive and on which model.
type config struct {
	bin string
	// live drives a real OpenAI model (-live) instead of the faux script.
	live  bool
	model string
	// stderr receives pi-rpc's stderr.
	stderr io.Writer
}

// childEnv is pi-rpc's environment: the demo's, without the model providers' variables
// (OPENAI_*, ANTHROPIC_*) unless the run is live, so that the offline demo cannot reach a
// provider even if a flag were lost.
func childEnv(env []string, live bool) []string {
	if live {
		return env
	}
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "OPENAI_") && !strings.HasPrefix(kv, "ANTHROPIC_") {
			out = append(out, kv)
		}
	}
	return out
}

// demo is one run of the scenario. Each step is a method that sends requests and prints the
// busy period they cause, so later scenarios (approvals) slot in as more steps.
type demo struct {
	c    *piclient.Client
	t    *transcript
	dir  string
	hold *approvalHold
}

// run sets up the directory, starts pi-rpc and plays the scenario, printing to out.
func run(ctx context.Context, cfg config, out io.Writer) error {
	root, err := os.MkdirTemp("", "pi-rpc-demo-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(root) }()
	// The transcript strips the directory from paths; strip the one pi-rpc sees (on macOS
	// /var is a symlink to /private/var).
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return err
	}
	dir := filepath.Join(root, "work")
	home := filepath.Join(root, "home")
	for _, d := range []string{dir, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(notesText), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "review.txt"), []byte(reviewText), 0o644); err != nil {
		return err
	}
	hold := newApprovalHold()
	defer hold.open()

	// No session files, no AGENTS.md and a private PI_RPC_HOME: nothing outside the
	// directory can change what the agent sees.
	args := []string{"--cwd", dir, "--no-session", "--no-context-files", "--log-level", "warn"}
	header := "pi-rpc demo on the scripted faux model (offline; make demo-live runs it on a real model)"
	if cfg.live {
		args = append(args, "--provider", "openai")
		if cfg.model != "" {
			args = append(args, "--model", cfg.model)
		}
		header = "pi-rpc demo on a real OpenAI model"
	} else {
		script := filepath.Join(root, "faux-script.json")
		if err := os.WriteFile(script, fauxScript, 0o644); err != nil {
			return err
		}
		args = append(args, "--provider", "faux", "--faux-script", script)
	}
	c, err := piclient.Spawn(ctx, piclient.SpawnOptions{
		Binary: absPath(cfg.bin),
		Args:   args,
		Dir:    dir,
		Env:    append(childEnv(os.Environ(), cfg.live), "PI_RPC_HOME="+home),
		Stderr: cfg.stderr,
		// The demo declares the permissions capability, so pi-rpc asks before write, edit and
		// bash: it approves changes to files and denies running commands.
		Options: piclient.Options{OnPermission: hold.approve},
	})
	if err != nil {
		return fmt.Errorf("starting %s: %w (run make build first, or pass -bin)", cfg.bin, err)
	}
	defer func() { _ = c.Close() }()

	d := &demo{c: c, t: newTranscript(out, dir), dir: dir, hold: hold}
	d.t.line("%s", header)
	d.t.line("directory: notes.txt, review.txt")
	for _, step := range []func(context.Context) error{d.initialize, d.toolLoop, d.abortMidStream, d.approvals, d.shutdown} {
		if err := step(ctx); err != nil {
			if cerr := c.Err(); cerr != nil {
				return fmt.Errorf("%w (connection: %w)", err, cerr)
			}
			return err
		}
	}
	notes, err := os.ReadFile(filepath.Join(dir, "notes.txt"))
	if err != nil {
		return err
	}
	d.t.line("notes.txt now:\n  %s", strings.ReplaceAll(strings.TrimRight(string(notes), "\n"), "\n", "\n  "))
	return nil
}

func (d *demo) initialize(ctx context.Context) error {
	res, err := d.c.Initialize(ctx, protocol.InitializeParams{
		ProtocolVersion: protocol.ProtocolVersion,
		ClientInfo:      &protocol.ClientInfo{Name: "pi-rpc-demo"},
		Capabilities:    protocol.ClientCapabilities{Permissions: true},
	})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	answer := fmt.Sprintf("protocol %d, model %s/%s", res.ProtocolVersion, res.Model.Provider, res.Model.ID)
	for _, p := range res.Problems {
		answer += fmt.Sprintf(", problem %s: %s", p.Kind, p.Message)
	}
	d.t.request("initialize", "", answer)
	if len(res.Problems) > 0 {
		return errors.New("pi-rpc cannot run the agent")
	}
	return nil
}

// toolLoop: a prompt that reads and edits files over several turns; a steer sent while the
// first tool runs, delivered after that tool batch; a follow-up delivered when the agent
// would have stopped; one agent_settled for all three inputs.
//
// A faux tool call takes microseconds, far less than a steer's round trip, so the demo holds
// the first tool batch at its edit's permission request until the steer and the follow-up are
// acknowledged: the batch cannot end before they are queued, and the run is the same every
// time.
func (d *demo) toolLoop(ctx context.Context) error {
	if _, err := d.prompt(ctx, "Read review.txt and apply the review to notes.txt."); err != nil {
		return err
	}
	steered := false
	_, err := d.period(ctx, func(ev piclient.Event) error {
		if ev.Type != sessionapi.EventPermissionRequested || steered {
			return nil
		}
		steered = true
		if _, err := d.queue(ctx, "steer", d.c.Steer, "Also add bread to the list."); err != nil {
			return err
		}
		if _, err := d.queue(ctx, "followUp", d.c.FollowUp, "When you are done, tell me in one line what changed."); err != nil {
			return err
		}
		d.hold.open()
		return nil
	})
	d.hold.open() // a real model may never ask
	return err
}

// abortMidStream: a prompt whose reply is aborted at its first text delta (the faux reply
// hangs after it, so the run is the same every time).
func (d *demo) abortMidStream(ctx context.Context) error {
	in, err := d.prompt(ctx, "Now write a long poem about shopping lists.")
	if err != nil {
		return err
	}
	aborted := false
	_, err = d.period(ctx, func(ev piclient.Event) error {
		if aborted || ev.Type != string(core.MessageUpdate) {
			return nil
		}
		var u struct {
			AssistantMessageEvent struct {
				Type string `json:"type"`
			} `json:"assistantMessageEvent"`
		}
		if err := ev.Decode(&u); err != nil || u.AssistantMessageEvent.Type != "text_delta" {
			return err
		}
		aborted = true
		res, err := d.c.Abort(ctx)
		if err != nil {
			return fmt.Errorf("abort: %w", err)
		}
		d.t.request("abort", "", fmt.Sprintf("aborted=%t", res.Aborted))
		return nil
	})
	if err != nil {
		return err
	}
	// agent_settled has been printed; waitSettled by input id answers at once with it.
	s, err := d.c.WaitSettled(ctx, in.InputID)
	if err != nil {
		return fmt.Errorf("waitSettled: %w", err)
	}
	d.t.request("waitSettled", in.InputID, settled(s))
	return nil
}

// approvalHold answers permission requests as approve does, but holds every answer until it
// is opened: the demo opens it once it has steered (see toolLoop).
type approvalHold struct {
	once   sync.Once
	opened chan struct{}
}

func newApprovalHold() *approvalHold { return &approvalHold{opened: make(chan struct{})} }

func (h *approvalHold) open() { h.once.Do(func() { close(h.opened) }) }

func (h *approvalHold) approve(ctx context.Context, req piclient.PermissionRequest) piclient.PermissionDecision {
	select {
	case <-h.opened:
	case <-ctx.Done():
	}
	return approve(ctx, req)
}

// approve is the demo's answer to permission/request: file changes are allowed, commands are
// not. The transcript shows the decisions through permission_requested/permission_resolved,
// which arrive in order with the other events.
func approve(_ context.Context, req piclient.PermissionRequest) piclient.PermissionDecision {
	if req.ToolName == "bash" {
		return piclient.PermissionDecision{Decision: "deny", Reason: "I will run the tests myself"}
	}
	return piclient.PermissionDecision{Decision: "allow"}
}

// approvals: a prompt whose reply writes a file (approved) and runs a command (denied); the
// model sees the denial as the command's result.
func (d *demo) approvals(ctx context.Context) error {
	if _, err := d.prompt(ctx, "Write a one-line summary to summary.txt, then run the tests."); err != nil {
		return err
	}
	if _, err := d.period(ctx, func(piclient.Event) error { return nil }); err != nil {
		return err
	}
	summary, err := os.ReadFile(filepath.Join(d.dir, "summary.txt"))
	if err != nil {
		return err
	}
	d.t.line("summary.txt now: %s", quote(strings.TrimSpace(string(summary)), 80))
	return nil
}

func (d *demo) shutdown(ctx context.Context) error {
	if _, err := d.c.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	d.t.request("shutdown", "", "ok")
	if err := d.c.Exit(); err != nil {
		return fmt.Errorf("exit: %w", err)
	}
	select {
	case <-d.c.Done():
	case <-ctx.Done():
		return fmt.Errorf("waiting for pi-rpc to exit: %w", ctx.Err())
	}
	var exit *piclient.ExitError
	if !errors.As(d.c.Err(), &exit) {
		return fmt.Errorf("connection ended: %w", d.c.Err())
	}
	d.t.line("→ exit  (pi-rpc exited with status %d)", exit.Code)
	if exit.Code != 0 {
		return exit
	}
	return nil
}

func (d *demo) prompt(ctx context.Context, text string) (*protocol.InputResult, error) {
	res, err := d.c.Prompt(ctx, protocol.PromptParams{Message: text})
	if err != nil {
		return nil, fmt.Errorf("prompt: %w", err)
	}
	d.t.request("prompt", quote(text, 60), res.InputID+" "+res.Disposition)
	return res, nil
}

func (d *demo) queue(ctx context.Context, method string, call func(context.Context, protocol.QueueParams) (*protocol.InputResult, error), text string) (*protocol.InputResult, error) {
	res, err := call(ctx, protocol.QueueParams{Message: text})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	d.t.request(method, quote(text, 60), res.InputID+" "+res.Disposition)
	return res, nil
}

// period prints events until agent_settled ends the busy period, calling on after printing
// each so that a step can act at a precise point of the run.
func (d *demo) period(ctx context.Context, on func(piclient.Event) error) (*sessionapi.Settled, error) {
	for {
		ev, err := d.c.NextEvent(ctx)
		if err != nil {
			return nil, fmt.Errorf("waiting for agent_settled: %w", err)
		}
		if err := d.t.event(ev); err != nil {
			return nil, err
		}
		if on != nil {
			if err := on(ev); err != nil {
				return nil, err
			}
		}
		if ev.Type == sessionapi.EventAgentSettled {
			var s sessionapi.Settled
			if err := ev.Decode(&s); err != nil {
				return nil, err
			}
			return &s, nil
		}
	}
}

// absPath makes a relative binary path absolute: the server runs in the demo's temp
// directory, and exec resolves a relative path against the child's directory.
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
