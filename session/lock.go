package session

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
)

// Lock is the advisory lock a process holds on a session file it appends to
// (docs/sessions.md#locking): flock(2) on the sidecar "<file>.lock", which records the holder's
// pid so that another process can say who has it. The lock lives on the sidecar rather than on
// the session file so that readers (listSessions, pi itself) never contend with it, and it dies
// with the process, so a crash leaves no stale lock behind (the sidecar file itself stays; it is
// empty of meaning once unlocked).
type Lock struct {
	fl *flock.Flock
}

// LockedError says another process holds a session file's lock.
type LockedError struct {
	File string
	// PID is the holder's pid as recorded in the sidecar, 0 if unreadable.
	PID int
}

func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("Session file is in use by pi-rpc pid %d", e.PID)
	}
	return "Session file is in use by another pi-rpc process"
}

// LockPath is the sidecar lock file of a session file.
func LockPath(sessionFile string) string { return sessionFile + ".lock" }

// AcquireLock takes the lock of sessionFile without waiting. It returns a *LockedError
// when another process (or another store of this one) holds it.
func AcquireLock(sessionFile string) (*Lock, error) {
	path := LockPath(sessionFile)
	fl := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if !ok {
		return nil, &LockedError{File: sessionFile, PID: LockHolder(sessionFile)}
	}
	// flock(2) locks belong to the open file description, so writing the pid through a
	// second descriptor and closing it keeps the lock.
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o600); err == nil {
		_, _ = f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
		_ = f.Close()
	}
	return &Lock{fl: fl}, nil
}

// LockHolder reads the pid recorded in sessionFile's sidecar, 0 if none. It does not tell
// whether the lock is held: a process that died leaves its pid behind.
func LockHolder(sessionFile string) int {
	data, err := os.ReadFile(LockPath(sessionFile))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

// Release unlocks. The sidecar file is left in place: removing it would let a process that
// opened it just before the removal lock a file nobody else can see.
func (l *Lock) Release() error {
	if l == nil || l.fl == nil {
		return nil
	}
	return l.fl.Unlock()
}

// IsLocked reports whether err says a session file is in use.
func IsLocked(err error) bool {
	var le *LockedError
	return errors.As(err, &le)
}
