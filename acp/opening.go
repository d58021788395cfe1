package acp

import (
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/session"
)

// openAsync opens a session for session/new or session/load off the reader goroutine:
// building it connects the editor's MCP servers, and a slow server must not hold up the
// connection's other requests. live queues the response (and, for a load, the replay
// before it); nothing of the session is written before that, since its events are dropped
// until it is live and no prompt can name it before its response. loadID, for a load, is
// the id the client asked for: requests naming it wait for the load to finish (see
// [Server.session]), so a prompt pipelined after session/load finds the session.
func (s *Server) openAsync(id json.RawMessage, loadID string, req session.OpenRequest, extra OpenExtra, live func(*acpSession)) {
	var loaded chan struct{}
	if loadID != "" {
		loaded = make(chan struct{})
		s.mu.Lock()
		s.loading[loadID] = loaded
		s.mu.Unlock()
	}
	s.closing.Add(1)
	s.opening.Add(1)
	go func() {
		defer s.closing.Done()
		defer s.opening.Done()
		if loaded != nil {
			defer func() {
				s.mu.Lock()
				delete(s.loading, loadID)
				s.mu.Unlock()
				close(loaded)
			}()
		}
		st, err := s.open(req, extra)
		if err != nil {
			s.w.fail(id, err)
			return
		}
		live(st)
	}()
}

// awaitLoad waits for a session/load of id in flight, if any.
func (s *Server) awaitLoad(id string) {
	s.mu.Lock()
	ch := s.loading[id]
	s.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

// openOrLoading reports whether a session of id is open or being loaded.
func (s *Server) openOrLoading(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id] != nil || s.loading[id] != nil
}
