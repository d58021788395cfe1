package pimode

import (
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/internal/jsonstring"
	"github.com/pi-rpc/pi-rpc/session"
)

// bash runs the user's command. As pi 1.6.0, each piece of output is streamed as
// bash_execution_update {id, delta} (id: the command's, when it has one) before the response,
// and excludeFromContext keeps the output out of the model's context.
func (s *Server) bash(r *request) error {
	var command string
	if err := r.required("command", &command); err != nil {
		return err
	}
	var exclude bool
	if _, err := r.field("excludeFromContext", &exclude); err != nil {
		return err
	}
	run, err := s.sup.BashWith(command, session.BashOptions{ExcludeFromContext: exclude, OnChunk: func(delta string) {
		s.w.Write(bashExecutionUpdate(r.id, delta))
	}})
	if err != nil {
		return err
	}
	s.async(r, func() (any, error) {
		res, err := run.Result()
		if err != nil {
			return nil, err
		}
		return res, nil
	})
	return nil
}

// bashExecutionUpdate is pi 1.6.0's {"type":"bash_execution_update","id"?,"delta"}.
func bashExecutionUpdate(id json.RawMessage, delta string) []byte {
	b := make([]byte, 0, 64+len(delta))
	b = append(b, `{"type":"bash_execution_update"`...)
	if id != nil {
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	b = append(b, `,"delta":`...)
	b = jsonstring.Append(b, delta)
	return append(b, '}')
}

func (s *Server) abortBash(r *request) error {
	s.sup.AbortBash()
	s.w.Write(success(r.id, r.typ, nil))
	return nil
}
