package main

import (
	"bytes"
	"fmt"
	"path/filepath"
)

// sessionSetup is the set-up of a scenario that opens a session: a session file of entries
// entries (writeSession), whose path the server is started with.
func sessionSetup(entries int) func(work string) (string, error) {
	return func(work string) (string, error) {
		path := filepath.Join(work, "session.jsonl")
		return path, writeSession(path, work, entries)
	}
}

// firstCall sends method, as a scenario that opens a session does right after the spawn, and
// times the sample from the spawn to the response.
func (p *proc) firstCall(s *sample, method string) (msg, error) {
	r, _, _, err := p.call(method, nil)
	if err == nil {
		s.wall = r.at.Sub(p.start)
	}
	return r, err
}

// largeSessionEntries is scenario 11's entry count: ten times scenario 7's session, about
// 45 MB.
const largeSessionEntries = 100_000

// largeSessionScenario is scenario 11, issue 25's "a 100,000-entry session opens in ≤ 0.5 s"
// through the real binary: `--session FILE` and a getState written at spawn, timed from spawn
// to the response, which comes once the session is open (it carries the file's session id).
// pi-rpc only: pi 0.73.1 reads every entry in full, and takes seconds per 10,000 (scenario 7).
func largeSessionScenario() scenario {
	return scenario{
		num: 11, name: "open a 100,000-entry session", measure: "spawn → getState response", piRPCOnly: true,
		setup: sessionSetup(largeSessionEntries),
		run: func(p *proc, s *sample) error {
			r, err := p.firstCall(s, "getState")
			if err != nil {
				return err
			}
			if !bytes.Contains(r.line, []byte(`"sessionId":"`+sessionHeaderID+`"`)) {
				return fmt.Errorf("getState's answer is not the opened session's (%s): %.300s", sessionHeaderID, r.line)
			}
			return nil
		},
	}
}
