package pimode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/jsonstring"
	"github.com/pi-rpc/pi-rpc/internal/transport"
	"github.com/pi-rpc/pi-rpc/session"
)

// Options configure a [Server].
type Options struct {
	// Host holds the session the server serves (its first; pi has one session per process,
	// which new_session, switch_session and fork move to another file) and the model
	// catalogue: get_available_models and cycle_model list its available models, set_model
	// and cycle_model switch through it.
	Host   *session.Host
	Writer *Writer
	In     io.Reader
	// Scope is the models cycle_model goes through (pi's --models); empty: the host's
	// available models.
	Scope []core.Model
	// MaxLineBytes is the longest accepted input line; a longer one is answered with a
	// parse failure and skipped.
	MaxLineBytes int
	Logger       zerolog.Logger
}

// Server serves pi's RPC protocol on one connection over one session.
type Server struct {
	host  *session.Host
	sup   *session.Supervisor
	w     *Writer
	in    io.Reader
	scope []core.Model
	max   int
	log   zerolog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	// pending counts commands answered from their own goroutine (abort, bash, compact, ...).
	pending sync.WaitGroup
	ui      *dialogs
	closed  chan struct{}
}

// NewServer returns a server for the host's first session; Serve starts it. A host without
// a session is an error.
func NewServer(o Options) (*Server, error) {
	sup, err := o.Host.Find("")
	if err != nil {
		return nil, err
	}
	max := o.MaxLineBytes
	if max <= 0 {
		max = 64 << 20
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{host: o.Host, sup: sup, w: o.Writer, in: o.In, scope: o.Scope, max: max, log: o.Logger,
		ctx: ctx, cancel: cancel, closed: make(chan struct{})}
	s.ui = newDialogs(o.Writer)
	return s, nil
}

// InputClosed is closed when stdin ends (or fails).
func (s *Server) InputClosed() <-chan struct{} { return s.closed }

// Serve reads commands until stdin ends. Each line is handled in order; a command that takes
// time (abort, bash, compact, session switches) is answered from its own goroutine, so the
// commands after it are answered while it runs, as pi does.
func (s *Server) Serve() {
	go func() {
		defer close(s.closed)
		r := transport.NewLineReader(s.in, s.max)
		for {
			line, err := r.Next()
			switch {
			case errors.Is(err, transport.ErrTooLarge):
				s.w.Write(failure(nil, "parse", fmt.Sprintf("Failed to parse command: line exceeds %d bytes", s.max)))
				continue
			case err != nil:
				if !errors.Is(err, io.EOF) {
					s.log.Debug().Err(err).Msg("reading stdin")
				}
				return
			}
			s.handleLine(line)
		}
	}()
}

// Close cancels the commands still running and waits for their answers.
func (s *Server) Close() {
	s.cancel()
	s.ui.cancelAll()
	s.pending.Wait()
}

// request is one decoded command: its raw fields, id and type.
type request struct {
	id     json.RawMessage
	typ    string
	fields map[string]json.RawMessage
}

// handleLine answers one line. Input that is not a JSON object is answered as pi answers
// it (a parse failure without id); invalid UTF-8 is not refused, as pi's reader replaces it.
func (s *Server) handleLine(line []byte) {
	f := transport.Classify(line)
	switch f.Kind {
	case transport.Empty:
		s.w.Write(failure(nil, "parse", "Failed to parse command: Unexpected end of JSON input"))
		return
	case transport.NotJSON:
		s.w.Write(failure(nil, "parse", "Failed to parse command: "+f.Reason))
		return
	case transport.Batch, transport.NotObject:
		s.w.Write(failure(nil, "parse", "Failed to parse command: expected a JSON object"))
		return
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(f.Data, &fields); err != nil {
		s.w.Write(failure(nil, "parse", "Failed to parse command: "+err.Error()))
		return
	}
	req := &request{fields: fields}
	if raw, ok := fields["id"]; ok && !bytes.Equal(raw, []byte("null")) {
		req.id = raw
	}
	if raw, ok := fields["type"]; ok {
		if err := json.Unmarshal(raw, &req.typ); err != nil {
			s.w.Write(failure(req.id, "parse", "Failed to parse command: type must be a string"))
			return
		}
	} else {
		s.w.Write(failure(req.id, "parse", "Failed to parse command: type is missing"))
		return
	}
	if req.typ == "extension_ui_response" {
		s.ui.answer(fields)
		return
	}
	h, ok := commands[req.typ]
	if !ok {
		// pi 0.73.1 leaves the id out here, so its clients wait for a timeout; it is echoed.
		s.w.Write(failure(req.id, req.typ, "Unknown command: "+req.typ))
		return
	}
	if err := h(s, req); err != nil {
		s.w.Write(failure(req.id, req.typ, errorText(err)))
	}
}

// errorText is the message of a failure response.
func errorText(err error) string {
	var se *session.Error
	if errors.As(err, &se) {
		return se.Message
	}
	return err.Error()
}

// success encodes a success response; data nil leaves "data" out, rawNull writes data:null.
func success(id json.RawMessage, command string, data any) []byte {
	b := responseHead(id)
	b = append(b, `"type":"response","command":`...)
	b = jsonstring.Append(b, command)
	b = append(b, `,"success":true`...)
	if data != nil {
		enc, err := json.Marshal(data)
		if err != nil {
			return failure(id, command, "internal error encoding the response: "+err.Error())
		}
		b = append(b, `,"data":`...)
		b = append(b, enc...)
	}
	return append(b, '}')
}

func failure(id json.RawMessage, command, msg string) []byte {
	b := responseHead(id)
	b = append(b, `"type":"response"`...)
	if command != "" {
		b = append(b, `,"command":`...)
		b = jsonstring.Append(b, command)
	}
	b = append(b, `,"success":false,"error":`...)
	b = jsonstring.Append(b, msg)
	return append(b, '}')
}

// responseHead opens a response line: the request's id first, as pi writes it, when the
// request had one.
func responseHead(id json.RawMessage) []byte {
	b := make([]byte, 0, 128)
	b = append(b, '{')
	if id != nil {
		b = append(b, `"id":`...)
		b = append(b, id...)
		b = append(b, ',')
	}
	return b
}

// nullData makes success write "data":null (cycle_model and cycle_thinking_level no-ops).
var nullData = json.RawMessage("null")

// field decodes an optional field into v; a field of the wrong type is an error naming it.
func (r *request) field(name string, v any) (bool, error) {
	raw, ok := r.fields[name]
	if !ok || bytes.Equal(raw, []byte("null")) {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("Invalid %s command: %s has the wrong type", r.typ, name)
	}
	return true, nil
}

// required decodes a field that must be present.
func (r *request) required(name string, v any) error {
	ok, err := r.field(name, v)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("Invalid %s command: %s is required", r.typ, name)
	}
	return nil
}

// async answers a command from its own goroutine.
func (s *Server) async(req *request, run func() (any, error)) {
	s.pending.Add(1)
	go func() {
		defer s.pending.Done()
		data, err := run()
		if err != nil {
			s.w.Write(failure(req.id, req.typ, errorText(err)))
			return
		}
		s.w.Write(success(req.id, req.typ, data))
	}()
}

// SetApprovalTimeout bounds how long a confirm dialog waits (0: no bound).
func (s *Server) SetApprovalTimeout(d time.Duration) { s.ui.timeout = d }

// Asker is the permission asker that sends pi's confirm dialogs.
func (s *Server) Asker() session.PermissionAsker { return s.ui }
