package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
)

// startSessions is the session the process starts with and where sessions live.
type startSessions struct {
	store   session.Store
	catalog *session.Catalog
}

// openSessions creates or opens the starting session (docs/sessions.md): --session resumes a file
// or id (another process holding it is a startup error), --continue the newest session of
// this cwd that nobody holds, --no-session keeps everything in memory; otherwise a new
// session whose file appears with the first user message. Warnings about a repaired file go
// to initialize's warnings. flag names the option the session reference came from in an
// error ("--session" at startup); a session a client asks for (createSession, ACP's
// session/load) passes "" and its errors carry no flag.
func openSessions(cfg *config, setup *agentSetup, flag string) (*startSessions, error) {
	cat, err := newCatalog(cfg, setup)
	if err != nil {
		return nil, err
	}
	var store session.Store
	ref := cfg.sessionRef
	if cfg.sessionID != "" {
		// pi 1.6.0: --session-id opens the project's session with that id, else starts one.
		if path, ok := cat.FindID(cfg.sessionID); ok {
			ref = path
		} else {
			s, err := cat.CreateWithID(cfg.sessionID, "", nil)
			if err != nil {
				return nil, fmt.Errorf("--session-id: %w", err)
			}
			store = s
		}
	}
	switch {
	case store != nil:
	case ref != "":
		path, err := cat.Resolve(ref)
		if err != nil {
			return nil, flagged(flag, "", err)
		}
		if cfg.noSession {
			m, err := session.OpenInMemory(path, cat.Options)
			if err != nil {
				return nil, flagged(flag, "", err)
			}
			store = m
			break
		}
		fs, err := session.OpenFileStore(path, setup.cwd, cat.Options)
		if err != nil {
			return nil, flagged(flag, path, err)
		}
		setup.warnings = append(setup.warnings, prefixed(path, fs.Warnings())...)
		store = fs
	case cfg.continueRecent && !cfg.noSession:
		s, err := cat.Continue()
		if err != nil {
			return nil, fmt.Errorf("--continue: %w", err)
		}
		if fs, ok := s.(*session.FileStore); ok {
			setup.warnings = append(setup.warnings, prefixed(fs.File(), fs.Warnings())...)
		}
		store = s
	}
	if store == nil {
		s, err := cat.Create("", nil)
		if err != nil {
			return nil, err
		}
		store = s
	}
	return &startSessions{store: store, catalog: cat}, nil
}

// flagged prefixes err with the flag it concerns and the file, when there are any (not the
// file when err names it already).
func flagged(flag, file string, err error) error {
	if session.IsNotSessionFile(err) {
		file = ""
	}
	prefix := strings.TrimSpace(flag + " " + file)
	if prefix == "" {
		return err
	}
	return fmt.Errorf("%s: %w", prefix, err)
}

func prefixed(file string, ws []string) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, file+": "+w)
	}
	return out
}

// newCatalog is where the sessions of setup's cwd live and how they are opened.
func newCatalog(cfg *config, setup *agentSetup) (*session.Catalog, error) {
	root := filepath.Join(setup.home, "sessions")
	dir := filepath.Join(root, session.EncodeCwd(setup.cwd))
	if cfg.sessionDir != "" {
		abs, err := filepath.Abs(cfg.sessionDir)
		if err != nil {
			return nil, fmt.Errorf("--session-dir: %w", err)
		}
		dir = abs
	}
	models := setup.models
	return &session.Catalog{
		Root: root, Dir: dir, CustomDir: cfg.sessionDir != "", Cwd: setup.cwd, Memory: cfg.noSession,
		Options: session.FileOptions{
			NewID: entryID,
			Now:   func() string { return session.ISOTime(time.Now()) },
			Fsync: session.FsyncMode(cfg.fsync),
		},
		ResolveModel: func(provider, id string) (core.Model, core.Provider, bool) {
			if models == nil {
				return core.Model{}, nil, false
			}
			m, p, err := models.Resolve(provider, id)
			return m, p, err == nil
		},
		ModelFromFlags:    cfg.model != "",
		ThinkingFromFlags: cfg.thinking != "",
	}, nil
}
