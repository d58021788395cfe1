// Package session is the supervisor around one agent: it turns client inputs (prompt, steer,
// follow-up, continue) into busy periods, keeps the busy ledger, emits a truthful
// agent_settled when a period ends, retries failed model calls and compacts the context. It
// also defines session entries (pi's JSONL tree) and the Store that persists them.
package session
