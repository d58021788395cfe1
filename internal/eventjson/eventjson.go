package eventjson

import (
	"encoding/json"
	"strconv"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/jsonstring"
)

// Dialect is a wire that writes events as JSON objects; a field's dialects are a set of them.
type Dialect uint8

// The dialects.
const (
	// JSONRPC is pi-rpc's JSON-RPC protocol: the params of an "event" notification.
	JSONRPC Dialect = 1 << iota
	// Pi is pi 1.6.0's RPC mode (--mode rpc): one bare object per line.
	Pi
	// Both is every dialect.
	Both = JSONRPC | Pi
)

// Options says how an event is written: the dialect, and what the client asked for.
type Options struct {
	Dialect Dialect
	// PartialMessages adds the whole partial message to a JSON-RPC message_update.
	PartialMessages bool
}

// field is one JSON field of an event of type E (a core event or an assistant-message step)
// whose writer gets the context C (by value: a pointer to a local would escape through the
// function values and cost the hot path an allocation).
type field[E, C any] struct {
	name string
	in   Dialect
	// omit reports that the field is left out; nil writes it always. A field that may be
	// left out is optional (omitempty) in its documentation.
	omit func(e *E, c C) bool
	put  func(dst []byte, e *E, c C) ([]byte, error)
	// doc documents a JSON-RPC field in package protocol.
	doc Doc
}

func newField[E, C any](name string, in Dialect, doc Doc, omit func(*E, C) bool, put func([]byte, *E, C) ([]byte, error)) field[E, C] {
	return field[E, C]{name: name, in: in, doc: doc, omit: omit, put: put}
}

// documented is f with another documentation (a field shared by several events, documented
// differently in one of them).
func (f field[E, C]) documented(d Doc) field[E, C] {
	f.doc = d
	return f
}

// fieldList is an event's fields, after "type", as described, and for each dialect the
// writers of the fields it writes, resolved once: the encoder's loop then touches only what
// it writes (a text delta is the commonest event, and this is most of its cost).
type fieldList[E, C any] struct {
	fields []field[E, C]
	// by is indexed by JSONRPC and Pi.
	by [Pi + 1][]writer[E, C]
}

// writer writes one field: its key, `,"name":`, then its value.
type writer[E, C any] struct {
	key  string
	omit func(e *E, c C) bool
	put  func(dst []byte, e *E, c C) ([]byte, error)
}

func newList[E, C any](fs ...field[E, C]) *fieldList[E, C] {
	l := &fieldList[E, C]{fields: fs}
	for _, d := range []Dialect{JSONRPC, Pi} {
		for _, f := range fs {
			if f.in&d != 0 {
				l.by[d] = append(l.by[d], writer[E, C]{key: `,"` + f.name + `":`, omit: f.omit, put: f.put})
			}
		}
	}
	return l
}

// appendFields writes the fields of dialect d (JSONRPC or Pi), each preceded by a comma. A
// nil list has none.
func appendFields[E, C any](dst []byte, l *fieldList[E, C], d Dialect, e *E, c C) ([]byte, error) {
	if l == nil {
		return dst, nil
	}
	ws := l.by[d]
	var err error
	for i := range ws {
		w := &ws[i]
		if w.omit != nil && w.omit(e, c) {
			continue
		}
		dst = append(dst, w.key...)
		if dst, err = w.put(dst, e, c); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// names lists the fields of dialect d, in order.
func names[E, C any](l *fieldList[E, C], d Dialect) []string {
	if l == nil {
		return nil
	}
	var out []string
	for _, f := range l.fields {
		if f.in&d != 0 {
			out = append(out, f.name)
		}
	}
	return out
}

func appendValue(dst []byte, v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, data...), nil
}

func appendString(dst []byte, s string) []byte { return jsonstring.Append(dst, s) }

func appendBool(dst []byte, b bool) []byte { return strconv.AppendBool(dst, b) }

func appendMessages(dst []byte, ms []core.Message) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = appendValue(dst, m); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}
