package pimode

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/jsonstring"
	"github.com/pi-rpc/pi-rpc/session"
)

func (s *Server) newSession(r *request) error {
	var parent string
	if _, err := r.field("parentSession", &parent); err != nil {
		return err
	}
	s.asyncSettled(r, func() (any, error) {
		return switched(s.sup.NewSession())
	})
	return nil
}

func (s *Server) switchSession(r *request) error {
	var path string
	if err := r.required("sessionPath", &path); err != nil {
		return err
	}
	s.asyncSettled(r, func() (any, error) {
		return switched(s.sup.OpenSession(path))
	})
	return nil
}

func (s *Server) fork(r *request) error {
	var entryID string
	if err := r.required("entryId", &entryID); err != nil {
		return err
	}
	s.asyncSettled(r, func() (any, error) {
		res, err := s.sup.ForkSession(entryID)
		if err != nil {
			return nil, err
		}
		return struct {
			Text      string `json:"text"`
			Cancelled bool   `json:"cancelled"`
		}{res.Text, false}, nil
	})
	return nil
}

// clone duplicates the current branch into a new session file and continues there (pi's
// fork at the leaf): after the run settles, as fork.
func (s *Server) clone(r *request) error {
	s.asyncSettled(r, func() (any, error) {
		// pi refuses a session with nothing selected; pi-rpc's new session already holds
		// its model entries, so "nothing" is no message yet.
		if len(s.sup.Messages()) == 0 {
			return nil, errors.New("Cannot clone session: no current entry selected")
		}
		ref, err := s.sup.CloneBranch()
		if err != nil {
			return nil, err
		}
		return switched(s.sup.OpenSession(ref.SessionFile))
	})
	return nil
}

func (s *Server) getSessionStats(r *request) error {
	s.w.Write(success(r.id, r.typ, s.sup.Stats()))
	return nil
}

// getForkMessages lists the user messages of every branch, in file order, as pi does.
func (s *Server) getForkMessages(r *request) error {
	page, err := s.sup.FileEntries("", 0)
	if err != nil {
		return err
	}
	type forkMessage struct {
		EntryID string `json:"entryId"`
		Text    string `json:"text"`
	}
	out := []forkMessage{}
	for _, raw := range page.Entries {
		var e struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			Message struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(raw, &e) != nil || e.Type != "message" || e.Message.Role != "user" {
			continue
		}
		if text := contentText(e.Message.Content); text != "" {
			out = append(out, forkMessage{e.ID, text})
		}
	}
	s.w.Write(success(r.id, r.typ, struct {
		Messages []forkMessage `json:"messages"`
	}{out}))
	return nil
}

// contentText concatenates the text blocks of a message content (a string or blocks).
func contentText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, c := range blocks {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// getLastAssistantText answers with the text of the last assistant message, as pi 1.6.0
// picks it: a message that did not stop normally (tool use, aborted, failed) counts only when
// it has text.
func (s *Server) getLastAssistantText(r *request) error {
	msgs := s.sup.Messages()
	var text *string
	for i := len(msgs) - 1; i >= 0; i-- {
		am, ok := msgs[i].(*core.AssistantMessage)
		if !ok {
			continue
		}
		var b strings.Builder
		for _, c := range am.Content {
			if c.Type == core.ContentText {
				b.WriteString(c.Text)
			}
		}
		t := strings.TrimSpace(b.String())
		if am.StopReason != core.StopReasonStop && t == "" {
			continue
		}
		if t != "" {
			text = &t
		}
		break
	}
	s.w.Write(success(r.id, r.typ, struct {
		Text *string `json:"text,omitempty"`
	}{text}))
	return nil
}

func (s *Server) setSessionName(r *request) error {
	var name string
	if err := r.required("name", &name); err != nil {
		return err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("Session name cannot be empty")
	}
	if _, err := s.sup.SetSessionName(name); err != nil {
		return err
	}
	// pi 1.6.0 announces the new name before it answers.
	ev := append([]byte(`{"type":"session_info_changed","name":`), jsonstring.Append(nil, name)...)
	s.w.Write(append(ev, '}'))
	s.w.Write(success(r.id, r.typ, nil))
	return nil
}

func (s *Server) getEntries(r *request) error {
	var since string
	if _, err := r.field("since", &since); err != nil {
		return err
	}
	page, err := s.sup.FileEntries(since, 0)
	if err != nil {
		var se *session.Error
		if errors.As(err, &se) && se.Kind == session.KindNotFound {
			return errors.New("Entry not found: " + since)
		}
		return err
	}
	entries := page.Entries
	if entries == nil {
		entries = []json.RawMessage{}
	}
	s.w.Write(success(r.id, r.typ, struct {
		Entries []json.RawMessage `json:"entries"`
		LeafID  *string           `json:"leafId"`
	}{entries, s.leafID()}))
	return nil
}

func (s *Server) getTree(r *request) error {
	page, err := s.sup.FileEntries("", 0)
	if err != nil {
		return err
	}
	roots, err := buildPiTree(page.Entries)
	if err != nil {
		return err
	}
	s.w.Write(success(r.id, r.typ, struct {
		Tree   []*piTreeNode `json:"tree"`
		LeafID *string       `json:"leafId"`
	}{roots, s.leafID()}))
	return nil
}

// leafID is the current leaf for get_entries and get_tree: null when the session has none.
func (s *Server) leafID() *string {
	if leaf := s.sup.Leaf(); leaf != "" {
		return &leaf
	}
	return nil
}

// compact aborts a running run first, as pi does, then compacts.
func (s *Server) compact(r *request) error {
	var instructions string
	if _, err := r.field("customInstructions", &instructions); err != nil {
		return err
	}
	s.asyncSettled(r, func() (any, error) {
		compaction, err := s.sup.Compact(instructions)
		if err != nil {
			return nil, err
		}
		res, err := compaction.Result()
		if err != nil {
			return nil, err
		}
		return res, nil
	})
	return nil
}
