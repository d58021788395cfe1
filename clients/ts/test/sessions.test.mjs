// Sessions through the typed methods: name, new, list, open; session_changed events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { record, startFaux, tempDir } from './helpers.mjs';

test('new, list and open sessions', async (t) => {
  const sessions = tempDir(t);
  const { client } = startFaux(
    t,
    { responses: [{ content: [{ type: 'text', text: 'First answer.' }] }] },
    { args: ['--session-dir', sessions] },
  );
  const events = record(client);
  const init = await client.initialize();
  const { inputId } = await client.prompt({ message: 'first question' });
  await client.waitSettled({ inputId });
  const state = await client.getState();
  assert.equal(state.sessionId, init.sessionId);
  assert.ok(state.sessionFile && existsSync(state.sessionFile), 'the session file is written');
  assert.ok(state.sessionFile.startsWith(sessions + path.sep), state.sessionFile);
  assert.deepEqual(await client.setSessionName({ name: ' first ' }), { name: 'first' });

  const fresh = await client.newSession();
  assert.notEqual(fresh.sessionId, init.sessionId);
  assert.deepEqual((await client.getMessages()).messages, []);
  const changed = events.filter((e) => e.type === 'session_changed');
  assert.deepEqual(changed.map((e) => [e.reason, e.previousSessionId, e.sessionId]), [['new', init.sessionId, fresh.sessionId]]);

  const { sessions: listed } = await client.listSessions();
  const first = listed.find((s) => s.id === init.sessionId);
  assert.ok(first, JSON.stringify(listed));
  assert.equal(first.name, 'first');
  assert.equal(first.firstMessage, 'first question');

  const opened = await client.openSession({ session: init.sessionId.slice(0, 13) });
  assert.equal(opened.sessionId, init.sessionId);
  const { messages } = await client.getMessages();
  assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant']);
  assert.equal(events.filter((e) => e.type === 'session_changed').at(-1).reason, 'open');
  const missing = await client.openSession({ session: 'no-such-session' }).catch((e) => e);
  assert.equal(missing.name, 'RpcError');
});
