package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// command is one of pi-rpc's slash commands in ACP mode (docs/editors.md). The agent runs it
// itself instead of sending the prompt to the model, answers with agent_message_chunks and
// ends the prompt with end_turn.
type command struct {
	name, description, hint string
	run                     func(s *Server, st *acpSession, id json.RawMessage, args string)
}

// commands is the table of pi-rpc's own slash commands, in the order they are listed: a
// package-level literal, as the method tables are (methods.go).
var commands = []command{
	{"compact", "Summarise the conversation to free the context window", "instructions for the summary (optional)", (*Server).cmdCompact},
	{"name", "Name this session", "the session's name", (*Server).cmdName},
	{"session", "Show this session's id, file, model, messages, tokens and cost", "", (*Server).cmdSession},
	{"fork", "Copy this conversation into a new saved session; this one goes on unchanged", "", (*Server).cmdFork},
	{"model", "Show or switch the model", "provider/model or model id", (*Server).cmdModel},
	{"thinking", "Show or set the thinking level", "off, minimal, low, medium, high or xhigh", (*Server).cmdThinking},
}

// availableCommands is the available_commands_update a session announces after it opens:
// pi-rpc's own commands, then the session's prompt templates and skills (templates.go).
func availableCommands(extra []sessionapi.Command) sdk.SessionUpdate {
	list := make([]sdk.AvailableCommand, 0, len(commands)+len(extra))
	for _, c := range commands {
		list = append(list, availableCommand(c.name, c.description, c.hint))
	}
	list = append(list, resourceCommands(extra)...)
	return sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: list}}
}

func availableCommand(name, description, hint string) sdk.AvailableCommand {
	ac := sdk.AvailableCommand{Name: name, Description: description}
	if hint != "" {
		ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}}
	}
	return ac
}

// announceCommands queues the session's available_commands_update.
func (st *acpSession) announceCommands(w *writer) {
	extra := st.sup.Commands()
	w.mu.Lock()
	defer w.mu.Unlock()
	st.updateLocked(w, availableCommands(extra))
}

// slashCommand finds the command a prompt names: a prompt of one text block whose first
// word is /name of a command. Anything else (an unknown /word included) goes to the model.
func slashCommand(blocks []sdk.ContentBlock) (*command, string) {
	if len(blocks) != 1 || blocks[0].Text == nil {
		return nil, ""
	}
	text := strings.TrimSpace(blocks[0].Text.Text)
	if !strings.HasPrefix(text, "/") {
		return nil, ""
	}
	name, args := text[1:], ""
	if i := strings.IndexFunc(name, unicode.IsSpace); i >= 0 {
		name, args = name[:i], name[i:]
	}
	for i := range commands {
		if commands[i].name == name {
			return &commands[i], strings.TrimSpace(args)
		}
	}
	return nil, ""
}

// reply answers a command: its text as one agent_message_chunk, then the prompt's response
// with end_turn, and any further updates (say, the new config options) in between.
func (s *Server) reply(st *acpSession, id json.RawMessage, text string, extra ...sdk.SessionUpdate) {
	s.replyWith(st, id, text, sdk.StopReasonEndTurn, extra...)
}

func (s *Server) replyWith(st *acpSession, id json.RawMessage, text string, reason sdk.StopReason, extra ...sdk.SessionUpdate) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	st.chunkLocked(w, sdk.UpdateAgentMessageText, text)
	for _, u := range extra {
		st.updateLocked(w, u)
	}
	w.queueLocked(outResult{JSONRPC: "2.0", ID: id, Result: sdk.PromptResponse{StopReason: reason}})
}

// errorText is an engine error as the sentence a command answers with.
func errorText(err error) string {
	var se *session.Error
	if errors.As(err, &se) {
		return se.Message
	}
	return err.Error()
}

// busy answers a command that needs the session idle while a turn runs.
func (s *Server) busy(st *acpSession, id json.RawMessage, what string) bool {
	if busy, _ := st.sup.Busy(); busy {
		s.reply(st, id, "Cannot "+what+" while the agent is working: send the command again when the turn has ended.")
		return true
	}
	return false
}

func (s *Server) cmdCompact(st *acpSession, id json.RawMessage, args string) {
	if s.busy(st, id, "compact") {
		return
	}
	st.cancelled.Store(false)
	// The busy period starts now, on the reader, so a prompt or a session/cancel after the
	// command finds it; the summary is a model request and runs beside the reader.
	pend, err := st.sup.Compact(args)
	if err != nil {
		s.reply(st, id, "Cannot compact: "+errorText(err))
		return
	}
	s.w.mu.Lock()
	st.compacting = id
	s.w.mu.Unlock()
	s.closing.Add(1)
	go func() {
		defer s.closing.Done()
		res, err := pend.Result()
		s.w.mu.Lock()
		st.compacting = nil
		s.w.mu.Unlock()
		switch {
		case err != nil && st.cancelled.Load():
			s.replyWith(st, id, "Compaction cancelled.", sdk.StopReasonCancelled)
		case err != nil:
			s.reply(st, id, "Cannot compact: "+errorText(err))
		default:
			s.reply(st, id, fmt.Sprintf("Compacted the conversation (%d tokens before). The model sees its summary from now on.", res.TokensBefore))
		}
	}()
}

func (s *Server) cmdName(st *acpSession, id json.RawMessage, args string) {
	if args == "" {
		if name := st.sup.SessionName(); name != "" {
			s.reply(st, id, fmt.Sprintf("This session is named %q. Rename it with /name <name>.", name))
		} else {
			s.reply(st, id, "This session has no name. Name it with /name <name>.")
		}
		return
	}
	name, err := st.sup.SetSessionName(args)
	if err != nil {
		s.reply(st, id, "Cannot name the session: "+errorText(err))
		return
	}
	s.reply(st, id, fmt.Sprintf("Session named %q.", name),
		sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{Title: sdk.Ptr(name)}})
}

func (s *Server) cmdSession(st *acpSession, id json.RawMessage, _ string) {
	snap := st.sup.State()
	stats := st.sup.Stats()
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s\n", st.id)
	if snap.SessionName != "" {
		fmt.Fprintf(&b, "Name: %s\n", snap.SessionName)
	}
	if stats.SessionFile != "" {
		fmt.Fprintf(&b, "File: %s\n", stats.SessionFile)
	} else {
		b.WriteString("File: none (not saved)\n")
	}
	fmt.Fprintf(&b, "Directory: %s\n", st.cwd)
	if snap.Model.ID != "" {
		fmt.Fprintf(&b, "Model: %s/%s", snap.Model.Provider, snap.Model.ID)
		if snap.Model.Reasoning {
			fmt.Fprintf(&b, " (thinking: %s)", snap.ThinkingLevel)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Messages: %d user, %d assistant, %d tool calls (%d in all)\n",
		stats.UserMessages, stats.AssistantMessages, stats.ToolCalls, stats.TotalMessages)
	t := stats.Tokens
	fmt.Fprintf(&b, "Tokens: %d input, %d output, %d cache read, %d cache write, %d in all\n",
		t.Input, t.Output, t.CacheRead, t.CacheWrite, t.Total)
	if cu := stats.ContextUsage; cu != nil && cu.Tokens != nil && cu.ContextWindow > 0 {
		fmt.Fprintf(&b, "Context: %d of %d tokens (%.1f%%)\n", *cu.Tokens, cu.ContextWindow, 100*float64(*cu.Tokens)/float64(cu.ContextWindow))
	}
	fmt.Fprintf(&b, "Cost: $%.4f", stats.Cost)
	s.reply(st, id, b.String())
}

func (s *Server) cmdFork(st *acpSession, id json.RawMessage, _ string) {
	if s.busy(st, id, "fork") {
		return
	}
	ref, err := st.sup.CloneBranch()
	if err != nil {
		s.reply(st, id, errorText(err))
		return
	}
	s.reply(st, id, fmt.Sprintf("Forked this conversation into session %s (%s). Open it from the session list (session/load); this session goes on unchanged.", ref.SessionID, ref.SessionFile))
}

// configUpdate is a config_option_update with the session's current options.
func (s *Server) configUpdate(st *acpSession) sdk.SessionUpdate {
	return sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: s.configOptions(st)}}
}

func (s *Server) cmdModel(st *acpSession, id json.RawMessage, args string) {
	if args == "" {
		snap := st.sup.State()
		var b strings.Builder
		fmt.Fprintf(&b, "The model is %s/%s.", snap.Model.Provider, snap.Model.ID)
		if models := s.host.Models(); len(models) > 0 {
			b.WriteString(" Switch with /model <provider/model>:")
			for _, m := range models {
				fmt.Fprintf(&b, "\n- %s/%s", m.Provider, m.ID)
			}
		}
		s.reply(st, id, b.String())
		return
	}
	if err := s.setModel(st, args); err != nil {
		s.reply(st, id, "Cannot switch the model: "+err.Error())
		return
	}
	m := st.sup.State().Model
	s.reply(st, id, fmt.Sprintf("Switched to %s/%s.", m.Provider, m.ID), s.configUpdate(st))
}

// setModel switches a session to the model ref names ("provider/id", or an id) through the
// host; the error is the host's sentence, which each caller words in its own way.
func (s *Server) setModel(st *acpSession, ref string) error {
	provider, id := "", ref
	if i := strings.Index(ref, "/"); i > 0 {
		provider, id = ref[:i], ref[i+1:]
	}
	return s.host.SetModel(st.sup, provider, id)
}

func (s *Server) cmdThinking(st *acpSession, id json.RawMessage, args string) {
	snap := st.sup.State()
	var accepted []string
	for _, l := range thinkingLevels {
		if snap.Model.ClampThinkingLevel(l) == l {
			accepted = append(accepted, string(l))
		}
	}
	if args == "" {
		s.reply(st, id, fmt.Sprintf("The thinking level is %s (the model accepts %s).", snap.ThinkingLevel, strings.Join(accepted, ", ")))
		return
	}
	l := core.ThinkingLevel(args)
	if !slices.Contains(thinkingLevels, l) {
		s.reply(st, id, fmt.Sprintf("Unknown thinking level %q: use one of %s.", args, strings.Join(accepted, ", ")))
		return
	}
	got := st.sup.SetThinkingLevel(l)
	text := fmt.Sprintf("Thinking level set to %s.", got)
	if got != l {
		text = fmt.Sprintf("The model does not accept %s; thinking level set to %s.", l, got)
	}
	s.reply(st, id, text, s.configUpdate(st))
}
