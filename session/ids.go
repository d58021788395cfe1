package session

import (
	"strconv"
	"sync/atomic"
)

// IDs hands out the short ids the protocol shows: inputs ("in1"), runs ("r1"), permission
// requests ("perm1") and the user's shell commands ("bash1"). One IDs is shared by every
// session of a process, so an id names one thing across all of them: a waitSettled or
// cancelInput for "in7" cannot be confused between sessions.
type IDs struct {
	inputs, runs, permissions, bash atomic.Int64
}

// Input returns a new input id, for a front end that names its input before submitting it
// (PromptRequest.InputID).
func (ids *IDs) Input() string { return "in" + strconv.FormatInt(ids.inputs.Add(1), 10) }

func (ids *IDs) run() string        { return "r" + strconv.FormatInt(ids.runs.Add(1), 10) }
func (ids *IDs) permission() string { return "perm" + strconv.FormatInt(ids.permissions.Add(1), 10) }
func (ids *IDs) bashCommand() string {
	return "bash" + strconv.FormatInt(ids.bash.Add(1), 10)
}
