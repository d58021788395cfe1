package acp

import (
	"encoding/json"
	"fmt"
	"slices"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
)

// Modes are the approval policies.
var modes = []struct{ id, approval, name, desc string }{
	{"ask", session.ApprovalAsk, "Ask", "Ask before every write, edit and command"},
	{"auto", session.ApprovalAuto, "Auto", "Run every tool without asking"},
	{"read-only", session.ApprovalDenyWrites, "Read-only", "Refuse writes, edits and commands"},
}

// sandboxModes name and describe the sandbox config option's values.
var sandboxModes = map[string][2]string{
	"off":             {"Off", "Commands run with your user's permissions"},
	"workspace-write": {"Workspace", "Commands write only the workspace, /tmp and the --sandbox-write directories"},
	"read-only":       {"Read-only", "Commands write nowhere"},
}

func (st *acpSession) modes() *sdk.SessionModeState {
	cur := st.sup.State().Options.Approval
	out := &sdk.SessionModeState{AvailableModes: []sdk.SessionMode{}}
	for _, m := range modes {
		out.AvailableModes = append(out.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m.id), Name: m.name, Description: sdk.Ptr(m.desc)})
		if m.approval == cur {
			out.CurrentModeId = sdk.SessionModeId(m.id)
		}
	}
	return out
}

func (s *Server) setMode(params json.RawMessage) (any, *sdk.RequestError) {
	p, err := decode[sdk.SetSessionModeRequest](params)
	if err != nil {
		return nil, err
	}
	st := s.session(string(p.SessionId))
	if st == nil {
		return nil, notFound(p.SessionId)
	}
	if err := setApproval(st, string(p.ModeId)); err != nil {
		return nil, err
	}
	return sdk.SetSessionModeResponse{}, nil
}

// setApproval sets the approval mode of a session/set_mode or of the mode config option.
func setApproval(st *acpSession, id string) *sdk.RequestError {
	for _, m := range modes {
		if id == m.id {
			st.sup.SetOptions(session.OptionsPatch{Approval: sdk.Ptr(m.approval)})
			return nil
		}
	}
	return reqError(codeInvalidParams, fmt.Sprintf("Invalid params: unknown mode %q (ask, auto, read-only)", id), nil)
}

// modeOption is the approval modes as the mode config option: a client that reads
// configOptions ignores modes, as ACP says it should.
func modeOption(st *acpSession) sdk.SessionConfigOption {
	state := st.modes()
	opts := sdk.SessionConfigSelectOptionsUngrouped{}
	for _, m := range state.AvailableModes {
		opts = append(opts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.Id), Name: m.Name, Description: m.Description})
	}
	o := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(state.CurrentModeId), sdk.SessionConfigSelectOptions{Ungrouped: &opts})
	o.Select.Id, o.Select.Name, o.Select.Category = "mode", "Approval", sdk.Ptr(sdk.SessionConfigOptionCategoryMode)
	o.Select.Description = sdk.Ptr("Who approves writes, edits and commands")
	return o
}

// sandboxOption is the session's OS sandbox as the sandbox config option; false when the
// process offers none.
func (s *Server) sandboxOption(st *acpSession) (sdk.SessionConfigOption, bool) {
	if s.opts.Sandbox == nil {
		return sdk.SessionConfigOption{}, false
	}
	list, cur := s.opts.Sandbox.Modes(st.sup)
	if len(list) == 0 {
		return sdk.SessionConfigOption{}, false
	}
	opts := sdk.SessionConfigSelectOptionsUngrouped{}
	for _, m := range list {
		name, desc := m, ""
		if d, ok := sandboxModes[m]; ok {
			name, desc = d[0], d[1]
		}
		opts = append(opts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m), Name: name, Description: sdk.Ptr(desc)})
	}
	o := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(cur), sdk.SessionConfigSelectOptions{Ungrouped: &opts})
	o.Select.Id, o.Select.Name = "sandbox", "Sandbox"
	o.Select.Description = sdk.Ptr("The OS sandbox of the agent's commands, from the next one on")
	return o, true
}

var thinkingLevels = []core.ThinkingLevel{"off", "minimal", "low", "medium", "high", "xhigh"}

func (s *Server) configOptions(st *acpSession) []sdk.SessionConfigOption {
	snap := st.sup.State()
	out := []sdk.SessionConfigOption{modeOption(st)}
	if o, ok := s.sandboxOption(st); ok {
		out = append(out, o)
	}
	if snap.Model.ID != "" {
		cur := snap.Model.Provider + "/" + snap.Model.ID
		opts := sdk.SessionConfigSelectOptionsUngrouped{}
		seen := false
		for _, m := range s.host.Models() {
			ref := m.Provider + "/" + m.ID
			seen = seen || ref == cur
			opts = append(opts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(ref), Name: modelName(m)})
		}
		if !seen {
			opts = append([]sdk.SessionConfigSelectOption{{Value: sdk.SessionConfigValueId(cur), Name: modelName(snap.Model)}}, opts...)
		}
		o := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(cur), sdk.SessionConfigSelectOptions{Ungrouped: &opts})
		o.Select.Id, o.Select.Name, o.Select.Category = "model", "Model", sdk.Ptr(sdk.SessionConfigOptionCategory("model"))
		out = append(out, o)
		if snap.Model.Reasoning {
			levels := sdk.SessionConfigSelectOptionsUngrouped{}
			for _, l := range thinkingLevels {
				if snap.Model.ClampThinkingLevel(l) == l {
					levels = append(levels, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(l), Name: string(l)})
				}
			}
			t := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(snap.ThinkingLevel), sdk.SessionConfigSelectOptions{Ungrouped: &levels})
			t.Select.Id, t.Select.Name, t.Select.Category = "thought_level", "Thinking", sdk.Ptr(sdk.SessionConfigOptionCategory("thought_level"))
			out = append(out, t)
		}
	}
	return out
}

func modelName(m core.Model) string {
	if m.Name != "" {
		return m.Name
	}
	return m.ID
}

func (s *Server) setConfigOption(params json.RawMessage) (any, *sdk.RequestError) {
	p, err := decode[sdk.SetSessionConfigOptionValueId](params)
	if err != nil {
		return nil, err
	}
	st := s.session(string(p.SessionId))
	if st == nil {
		return nil, notFound(p.SessionId)
	}
	switch p.ConfigId {
	case "mode":
		if err := setApproval(st, string(p.Value)); err != nil {
			return nil, err
		}
	case "sandbox":
		if _, ok := s.sandboxOption(st); !ok {
			return nil, reqError(codeInvalidParams, "Invalid params: this agent offers no sandbox", nil)
		}
		if serr := s.opts.Sandbox.SetMode(st.sup, string(p.Value)); serr != nil {
			return nil, reqError(codeInvalidParams, "Invalid params: "+serr.Error(), nil)
		}
	case "model":
		if serr := s.setModel(st, string(p.Value)); serr != nil {
			return nil, reqError(codeInvalidParams, "Invalid params: "+serr.Error(), nil)
		}
	case "thought_level":
		l := core.ThinkingLevel(p.Value)
		if !slices.Contains(thinkingLevels, l) {
			return nil, reqError(codeInvalidParams, fmt.Sprintf("Invalid params: unknown thinking level %q", p.Value), nil)
		}
		st.sup.SetThinkingLevel(l)
	default:
		return nil, reqError(codeInvalidParams, fmt.Sprintf("Invalid params: unknown config option %q", p.ConfigId), nil)
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions(st)}, nil
}
