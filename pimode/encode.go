package pimode

import (
	"github.com/pi-rpc/pi-rpc/internal/eventjson"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// appendEvent appends ev as pi 1.6.0 writes it (docs/json.md of pi's package): a bare object
// with pi's fields and nothing else (no seq, runId or sessionId), as internal/eventjson
// describes them for pi's dialect. It returns nil, nil for engine events pi has no
// counterpart for (model_changed, session_changed, bash_update, permission_*), which are not
// written.
func appendEvent(dst []byte, ev *sessionapi.Event) ([]byte, error) {
	dst = append(dst, '{')
	var err error
	if ev.Core != nil {
		dst, err = eventjson.AppendCore(dst, ev.Core, eventjson.Options{Dialect: eventjson.Pi})
	} else {
		var ok bool
		if dst, ok, err = eventjson.AppendSession(dst, ev, eventjson.Pi); err == nil && !ok {
			return nil, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// piQueue is pi's queue_update payload, which clear_queue answers with too.
type piQueue = eventjson.PiQueue

var queueTexts = eventjson.QueueTexts
